"""The issue's state as kept on the forge: one versioned, frozen model."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from conveyor.core.spec_tests import SpecTests
from conveyor.core.stops import StopCode

STATE_VERSION = 1

NonNegative = Annotated[int, Field(ge=0)]
# The change's code and wiki flows (FLOW-1): see `conveyor.core.flows`.
Flows = Literal["code", "wiki", "both", "neither"]


class Frozen(BaseModel):
    """A part of the state: unknown keys are errors, values never change in place."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Stage(StrEnum):
    """Where an issue is in the pipeline (finer than its labels, GH-3)."""

    TRIAGE = "triage"
    SPEC = "spec"
    IMPLEMENT = "implement"
    REVIEW = "review"
    FIX = "fix"
    SYNC = "sync"
    CHECKS = "checks"
    ACCEPT = "accept"
    SECURITY = "security"
    MERGE = "merge"
    DONE = "done"
    # Verified, accepted and security-reviewed, left for a person to merge (handover.merge).
    APPROVED = "approved"
    # Not an issue's stage: a review of a person's PR, a job under the PR's number.
    PR_REVIEW = "pr-review"


# The stages an issue ends at: merged (done), or handed to a person to merge (approved).
FINAL = frozenset({Stage.DONE, Stage.APPROVED})


class Pool(StrEnum):
    """Which token pool pays for a session (BUD-5, BUD-7)."""

    ISSUE = "issue"
    REBASE = "rebase"


class Lease(Frozen):
    """Who holds the issue: the lane, its job and when it claimed (CLAIM-1)."""

    lane: str
    job_id: str
    at: datetime
    released: bool = False


class Finding(Frozen):
    """One review finding and what became of it."""

    id: str
    lens: str
    severity: Literal["blocking", "nit"]
    file: str | None = None
    line: int | None = None
    evidence: str
    suggestion: str = ""
    status: Literal["open", "resolved", "disputed", "reopened"] = "open"
    disputes: NonNegative = 0
    # The harm category of a security finding (SEC-2), which names its stop label.
    category: Literal["user-harm", "users-rights", "financial-harm", "abuse-risk"] | None = None
    # The fixer's reason (and spec quote) when it disputed the finding (FIX-4, FIX-6).
    dispute: str | None = None


class Rounds(Frozen):
    """Counts of the bounded loops; all reset on a restart (STOP-12)."""

    fix: NonNegative = 0
    check_fix: NonNegative = 0
    security: NonNegative = 0
    syncs: NonNegative = 0
    conflict_fixes: NonNegative = 0
    triage_attempts: NonNegative = 0
    spec_attempts: NonNegative = 0
    resumes: NonNegative = 0


class Charge(Frozen):
    """One launch charge (BUD-1, BUD-8): the role's budget, from a pool, and its usage.

    `ahead` marks a charge saved with an earlier one for a session of the same role and
    stage not launched yet (a review's later lenses): the launch takes it without a save;
    a job that ends, or the next one after a crash, gives back any still ahead.
    """

    role: str
    pool: Pool
    tokens: NonNegative
    used: NonNegative | None = None
    cost_usd: float | None = None
    ahead: bool = False


class Stopped(Frozen):
    """Why and where the issue stopped; cleared by a restart."""

    control: StopCode
    reason: str
    stage: Stage
    at: datetime


class Rereview(Frozen):
    """A pushed fix waiting for its re-review: the fix diff's base and the lenses to run (FIX-2)."""

    base_sha: str
    lenses: tuple[str, ...]


class Rescue(Frozen):
    """Local commits a claim saved as a rescue ref (STOP-10), and whether work went on from them.

    `kept`: the branch had not moved, so the job continued from the rescued head
    (unreviewed commits); otherwise it reset to the branch and the ref keeps them.
    """

    ref: str
    sha: str
    kept: bool
    at: datetime


class CiWait(Frozen):
    """A checks job that saved the issue while CI was pending on `sha` (CHK-15).

    `since` is when the wait on this head began (for `ci_timeout_minutes`),
    `empty_reads` how many reads in a row found no check at all, `last_read`
    when the checks were last read (the next job is due `ci_poll_seconds` later).
    """

    sha: str
    since: datetime
    empty_reads: NonNegative = 0
    last_read: datetime | None = None


class FeedbackSeen(Frozen):
    """The newest PR review, review comment and conversation comment already read (BB-FB-3).

    Ids only grow on a forge, so anything with a larger id is new feedback.
    """

    review: NonNegative = 0
    review_comment: NonNegative = 0
    comment: NonNegative = 0


class StackedOn(Frozen):
    """The prerequisite issue this one is built on, and the head of its branch the issue's
    own commits were last put on (STK-1); the dependent's own commits are the ones after it.
    """

    issue: int = Field(ge=1)
    head_sha: str


class IssueState(Frozen):
    """Everything the stages keep about one issue between jobs (GH-7, GH-9)."""

    v: Literal[1] = 1
    stage: Stage = Stage.TRIAGE
    lease: Lease | None = None
    pr: int | None = None
    head_sha: str | None = None
    reviewed_sha: str | None = None
    verified_sha: str | None = None
    passed_sha: str | None = None
    start_sha: str | None = None
    start_wiki_sha: str | None = None
    implemented: bool = False
    findings: tuple[Finding, ...] = ()
    rounds: Rounds = Rounds()
    continuations: dict[Stage, NonNegative] = Field(default_factory=dict)
    charges: tuple[Charge, ...] = ()
    rebase_from: NonNegative = 0
    money_from: NonNegative = 0
    merge_rebase: bool = False
    plan: str | None = None
    split_suggested: bool = False
    depth: NonNegative = 0
    parent: int | None = None
    after: tuple[int, ...] = ()
    spec: str | None = None
    spec_file: str | None = None
    interfaces: str | None = None
    no_tests_reason: str | None = None
    # The spec writer's tests by name, as its commit check saw them (core.spec_tests).
    spec_tests: SpecTests | None = None
    # What judges the change that a checks-config stop showed (keys of config changes and
    # suppressions), and what people accepted by lifting such a stop (`verify.judges`).
    checks_shown: tuple[str, ...] = ()
    checks_accepted: tuple[str, ...] = ()
    changed_paths: tuple[str, ...] = ()
    stopped: Stopped | None = None
    wiki_only: bool = False
    flows: Flows = "code"
    stacked_on: StackedOn | None = None
    rescue: Rescue | None = None
    ci_wait: CiWait | None = None
    rereview: Rereview | None = None
    # The pipeline closed the PR because the change lives only in the wiki (PR-7).
    pr_closed: bool = False
    feedback: FeedbackSeen = FeedbackSeen()
    # The hash of each body or comment text taken into issue.md, by key (TRUST-12,
    # `core/taken.py`): a later edit nobody trusted is held against it.
    taken: dict[str, str] = Field(default_factory=dict)

    def open_blocking(self) -> tuple[Finding, ...]:
        """The blocking findings not yet resolved."""
        return tuple(
            f for f in self.findings if f.severity == "blocking" and f.status != "resolved"
        )
