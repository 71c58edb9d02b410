"""What a stage machine asks the job to do (effects) and what comes back (results)."""

from __future__ import annotations

from dataclasses import dataclass

from conveyor.core.agent_failure import InfraKind
from conveyor.core.config import Role
from conveyor.core.flows import PrAction
from conveyor.core.replies import Interface, Reply
from conveyor.core.session import SessionRole, SessionStatus
from conveyor.core.spec_tests import SpecTests
from conveyor.core.state import IssueState
from conveyor.stages.effects_merge import MergeEffect, MergeStageResult
from conveyor.stages.effects_review import ReviewEffect, ReviewResult

# -- effects: imperative names, frozen, interpreted by `conveyor.job.runner` ----------


@dataclass(frozen=True)
class ChargeBudget:
    """Charge one session of `role` its budget and save the state (BUD-1), or refuse.

    With `ahead`, up to that many more sessions of the role are charged in the same save,
    marked ahead: a later launch's ChargeBudget takes one without a save. A charge saved
    ahead is still saved before its session launches (BUD-1).
    """

    role: Role
    ahead: int = 0


@dataclass(frozen=True)
class LaunchSession:
    """Run one agent session; `attempt` and `continuation` count within the stage.

    `alongside`: the sessions the stage will launch next, charged already, whose tasks do
    not depend on this one's reply (a first review's later lenses): the job may start them
    now, at the same time, and answer their launches from what they ended with. `model`
    replaces the role's model for this session (a lens's or an angle's, REV-3).
    """

    kind: str
    role: SessionRole
    budget_role: Role
    reply_model: str
    system_prompt: str
    task: str
    attempt: int
    continuation: int = 0
    alongside: tuple[LaunchSession, ...] = ()
    model: str | None = None


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
    """The spec writer's commit check since `start_sha` (SPEC-78..86), and wiki-check on
    the wiki pages it committed (SPEC-79); `wiki_only` and a spec that lists Wiki updates
    ask for a wiki change (SPEC-116, SPEC-119)."""

    start_sha: str
    interfaces: tuple[Interface, ...]
    no_tests_reason: str | None
    wiki_only: bool = False
    lists_wiki_updates: bool = False


@dataclass(frozen=True)
class RunTests:
    """Run the configured setup and test commands at the checkout's head."""


@dataclass(frozen=True)
class ResetBranch:
    """Put the issue branch back to `to_sha`, deleting it on the forge when it was pushed;
    the wiki branch goes back to `wiki_sha` the same way (SPEC-99)."""

    to_sha: str
    wiki_sha: str | None = None


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
    """Push the branch unless nothing changed since `spec_sha` (PR-6), and the wiki branch
    when the wiki checkout has commits of its own (WT-9)."""

    spec_sha: str


@dataclass(frozen=True)
class SettlePr:
    """The shared flow step (FLOW-3): close, reopen (or open) and ready, or ready the PR.

    `title` and `body` replace the PR's (the implementer's); None keeps them.
    """

    action: PrAction
    title: str | None = None
    body: str | None = None


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
    | SettlePr
    | MergeEffect
    | ReviewEffect
)

# -- results: past tense, fed back to `transition` ----------------------------------


@dataclass(frozen=True)
class Began:
    """The stage starts; the first result every machine gets."""


@dataclass(frozen=True)
class Charged:
    """The charge was saved: the state with it, and its index in `state.charges` (None:
    the last)."""

    state: IssueState
    at: int | None = None


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
    `adopted` is the head a branch guard found pushed by the pipeline itself (a job
    that died before saving it): the recorded head moves there. `spec_tests` is what the
    spec's commit check saw of the spec writer's tests (kept for every later verify).
    """

    ok: bool
    findings: tuple[str, ...] = ()
    environment: str = ""
    adopted: str | None = None
    spec_tests: SpecTests | None = None


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
    """The push: the head, `git diff --name-only base...head`, and what changed since the spec.

    `wiki_ahead`: the wiki branch has commits of its own (the wiki flow); `wiki_new`: the
    wiki files this job's commits changed.
    """

    head_sha: str
    changed_paths: tuple[str, ...]
    new_paths: tuple[str, ...]
    wiki_ahead: bool = False
    wiki_new: tuple[str, ...] = ()

    @property
    def changed_anything(self) -> bool:
        """Whether the job's commits changed code or wiki pages."""
        return bool(self.new_paths or self.wiki_new)


@dataclass(frozen=True)
class PrSettled:
    """The PR after the shared flow step: its number (None: none) and whether it is open."""

    number: int | None
    open: bool


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
    | PrSettled
    | MergeStageResult
    | ReviewResult
)
