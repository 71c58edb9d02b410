"""What a stage machine asks the job to do (effects) and what comes back (results)."""

from __future__ import annotations

from dataclasses import dataclass

from conveyor.core.agent_failure import InfraKind
from conveyor.core.config import Role
from conveyor.core.replies import Interface, Reply
from conveyor.core.session import SessionRole, SessionStatus
from conveyor.core.state import IssueState
from conveyor.stages.effects_merge import MergeEffect, MergeStageResult
from conveyor.stages.effects_review import ReviewEffect, ReviewResult

# -- effects: imperative names, frozen, interpreted by `conveyor.job.runner` ----------


@dataclass(frozen=True)
class ChargeBudget:
    """Charge one session of `role` its budget and save the state (BUD-1), or refuse."""

    role: Role


@dataclass(frozen=True)
class LaunchSession:
    """Run one agent session; `attempt` and `continuation` count within the stage."""

    kind: str
    role: SessionRole
    budget_role: Role
    reply_model: str
    system_prompt: str
    task: str
    attempt: int
    continuation: int = 0


@dataclass(frozen=True)
class PostComment:
    """Post a signed comment as `role`; `per_issue` keeps one copy per issue, edited in place."""

    kind: str
    role: str
    text: str
    per_issue: bool = False


@dataclass(frozen=True)
class SaveSpecFile:
    """Keep the whole spec as `spec.md` in the issue's run folder (SPEC-48)."""

    text: str


@dataclass(frozen=True)
class CheckSpecCommits:
    """The spec writer's commit check since `start_sha` (SPEC-78..86)."""

    start_sha: str
    interfaces: tuple[Interface, ...]
    no_tests_reason: str | None


@dataclass(frozen=True)
class RunTests:
    """Run the configured setup and test commands at the checkout's head."""


@dataclass(frozen=True)
class ResetBranch:
    """Put the issue branch back to `to_sha`, deleting it on the forge when it was pushed."""

    to_sha: str


@dataclass(frozen=True)
class OpenDraftPr:
    """Push the branch (an empty start commit when it has none) and open or find its draft PR."""


@dataclass(frozen=True)
class CheckSpecTests:
    """Check that the spec writer's test files (since `start_sha`, up to `spec_sha`) are intact."""

    start_sha: str
    spec_sha: str


@dataclass(frozen=True)
class PushBranch:
    """Push the branch unless nothing changed since `spec_sha` (PR-6)."""

    spec_sha: str


@dataclass(frozen=True)
class FinishPr:
    """Set the PR's title and body (keeping `(#N)` and `Closes #N`) and mark it ready."""

    title: str
    body: str


Effect = (
    ChargeBudget
    | LaunchSession
    | PostComment
    | SaveSpecFile
    | CheckSpecCommits
    | RunTests
    | ResetBranch
    | OpenDraftPr
    | CheckSpecTests
    | PushBranch
    | FinishPr
    | MergeEffect
    | ReviewEffect
)

# -- results: past tense, fed back to `transition` ----------------------------------


@dataclass(frozen=True)
class Began:
    """The stage starts; the first result every machine gets."""


@dataclass(frozen=True)
class Charged:
    """The charge was saved: the state with it."""

    state: IssueState


@dataclass(frozen=True)
class Refused:
    """The charge would pass a token pool's limit."""

    reason: str


@dataclass(frozen=True)
class SessionEnded:
    """How a session ended: the accepted reply (if any), its tokens, its last check findings.

    `infra` names an infrastructure failure (a sign-in, a usage limit, an overload, the
    network, the CLI): never the issue's doing, so the stage is deferred, not failed.
    """

    status: SessionStatus
    reply: Reply | None = None
    error: str | None = None
    used: int | None = None
    findings: tuple[str, ...] = ()
    infra: InfraKind | None = None
    cost_usd: float | None = None

    @property
    def deferred(self) -> bool:
        """Whether the stage should wait and run again: a usage limit or another infra failure."""
        return self.status is SessionStatus.RATE_LIMITED or self.infra is not None


@dataclass(frozen=True)
class Done:
    """An op finished (ops answer only ok: SPEC-135)."""


@dataclass(frozen=True)
class Checked:
    """A check's verdict; `findings` name every offending file or rule.

    `environment`, when set, is an environment error (the command and its output's
    tail): the check could not judge the work, which is nobody's fault in the session.
    """

    ok: bool
    findings: tuple[str, ...] = ()
    environment: str = ""


@dataclass(frozen=True)
class SuiteRan:
    """The test command's outcome at the head."""

    passed: bool
    detail: str = ""


@dataclass(frozen=True)
class PrOpened:
    """The issue's draft PR (found or opened) and the head it points at."""

    number: int
    head_sha: str


@dataclass(frozen=True)
class Pushed:
    """The push: the head, `git diff --name-only base...head`, and what changed since the spec."""

    head_sha: str
    changed_paths: tuple[str, ...]
    new_paths: tuple[str, ...]


Result = (
    Began
    | Charged
    | Refused
    | SessionEnded
    | Done
    | Checked
    | SuiteRan
    | PrOpened
    | Pushed
    | MergeStageResult
    | ReviewResult
)
