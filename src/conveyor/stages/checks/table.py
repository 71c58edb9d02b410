"""The checks stage's table: verify, the CI gate as a hold, and the CI fixer (CHK-*)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from conveyor.core.flows import PrAction
from conveyor.core.replies import CheckFixReply
from conveyor.core.state import IssueState, Stage
from conveyor.stages.effects_merge import CiRead, Verified
from conveyor.stages.step import Inputs


class Phase(StrEnum):
    """Where the checks stage is; phases from TO_ACCEPT on are ends."""

    START = "start"
    GUARD = "guard-branch"
    WIKI_CHECK = "wiki-check"
    VERIFY = "verify"
    READ_CI = "read-ci"
    REPORT = "report"
    CHARGE = "charge"
    LAUNCH = "launch-check-fixer"
    PUSH = "push"
    SETTLE = "settle-pr"
    TO_ACCEPT = "to-accept"
    HOLD = "ci-wait"
    TO_REVIEW = "fix-to-review"
    BRANCH_CHANGED = "branch-changed"
    NO_CI = "no-ci"
    UNRELATED = "checks-unrelated"
    CHECK_FIXES = "check-fixes"
    TOO_LARGE = "too-large"
    FAILED = "failed"
    OVER_BUDGET = "over-budget"
    DEFERRED = "deferred"
    ENVIRONMENT = "environment-error"


class Event(StrEnum):
    """What a result means to the checks stage."""

    BEGIN = "begin"
    PASSED = "passed"
    CHANGED = "changed"
    WAITING = "waiting"
    FAILED = "failed"
    EXHAUSTED = "exhausted"
    PENDING = "pending"
    TIMED_OUT = "timed-out"
    UNRELATED = "unrelated"
    DONE = "done"
    CHARGED = "charged"
    REFUSED = "refused"
    HANDOFF = "handoff"
    TOO_MANY_HANDOFFS = "too-many-handoffs"
    CANNOT_FIX = "cannot-fix"
    BROKEN = "broken"
    DEFERRED = "deferred"
    NOTHING = "nothing"
    ENVIRONMENT = "environment-error"
    WIKI = "wiki"
    WIKI_ONLY = "wiki-only"
    PR_CHANGES = "pr-changes"


ENDS = (
    Phase.TO_ACCEPT,
    Phase.HOLD,
    Phase.TO_REVIEW,
    Phase.BRANCH_CHANGED,
    Phase.NO_CI,
    Phase.UNRELATED,
    Phase.CHECK_FIXES,
    Phase.TOO_LARGE,
    Phase.FAILED,
    Phase.OVER_BUDGET,
    Phase.DEFERRED,
    Phase.ENVIRONMENT,
)
_RED = {Event.FAILED: Phase.CHARGE, Event.EXHAUSTED: Phase.CHECK_FIXES}
EXITS: dict[Phase, dict[Event, Phase]] = {
    Phase.START: {Event.BEGIN: Phase.GUARD},
    Phase.GUARD: {
        Event.PASSED: Phase.VERIFY,
        Event.WAITING: Phase.READ_CI,
        Event.WIKI: Phase.WIKI_CHECK,
        Event.CHANGED: Phase.BRANCH_CHANGED,
    },
    # CHK-8, FLOW-5, FLOW-6: wiki-check first; for a wiki-only change it is the only check.
    Phase.WIKI_CHECK: {
        Event.PASSED: Phase.VERIFY,
        Event.WAITING: Phase.READ_CI,
        Event.WIKI_ONLY: Phase.REPORT,
        **_RED,
    },
    Phase.VERIFY: {
        Event.PASSED: Phase.READ_CI,
        Event.ENVIRONMENT: Phase.ENVIRONMENT,
        **_RED,
    },
    Phase.READ_CI: {
        Event.PASSED: Phase.REPORT,
        Event.PENDING: Phase.HOLD,
        Event.TIMED_OUT: Phase.NO_CI,
        Event.UNRELATED: Phase.UNRELATED,
        **_RED,
    },
    Phase.REPORT: {Event.DONE: Phase.TO_ACCEPT},
    Phase.CHARGE: {Event.CHARGED: Phase.LAUNCH, Event.REFUSED: Phase.OVER_BUDGET},
    Phase.LAUNCH: {
        Event.DONE: Phase.PUSH,
        Event.HANDOFF: Phase.CHARGE,
        Event.TOO_MANY_HANDOFFS: Phase.TOO_LARGE,
        Event.CANNOT_FIX: Phase.CHECK_FIXES,
        Event.BROKEN: Phase.FAILED,
        Event.DEFERRED: Phase.DEFERRED,
    },
    Phase.PUSH: {
        Event.CHANGED: Phase.TO_REVIEW,
        Event.PR_CHANGES: Phase.SETTLE,
        Event.NOTHING: Phase.CHECK_FIXES,
    },
    Phase.SETTLE: {Event.DONE: Phase.TO_REVIEW},
    **{end: {} for end in ENDS},
}


@dataclass(frozen=True)
class Checks:
    """The checks stage's memory: what verify and CI said, and the fixer's attempt."""

    inputs: Inputs
    state: IssueState
    phase: Phase = Phase.START
    verified: Verified | None = None
    ci: CiRead | None = None
    problems: tuple[str, ...] = ()
    reply: CheckFixReply | None = None
    attempt: int = 0
    note: str = ""
    action: PrAction = "go"

    @property
    def head(self) -> str:
        """The head being checked: the verified one once verify ran."""
        return self.verified.head_sha if self.verified else self.inputs.head_sha

    @property
    def continuation(self) -> int:
        """Continuations of the check fixer within this stage."""
        return self.state.continuations.get(Stage.CHECKS, 0)
