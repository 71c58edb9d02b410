"""The sync stage's table: rebase onto the base (a stacked issue: onto its prerequisite's head,
or the base once it merged), the conflict resolver, finish-sync (SYNC-*, STK-2)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from conveyor.core.flows import PrAction
from conveyor.core.replies import ResolverReply
from conveyor.core.stacking import StackMove
from conveyor.core.state import IssueState, Stage
from conveyor.stages.step import Inputs


class Phase(StrEnum):
    """Where the sync stage is; phases from TO_CHECKS on are ends."""

    START = "start"
    GUARD = "guard-branch"
    SYNC_BASE = "sync-base"
    CHARGE = "charge"
    LAUNCH = "launch-resolver"
    FINISH = "finish-sync"
    SETTLE = "settle-pr"
    UNDO_RETRY = "restore-then-retry"
    UNDO_CONFLICT = "restore-then-conflict"
    UNDO_TOO_LARGE = "restore-then-too-large"
    UNDO_BUDGET = "restore-then-budget"
    UNDO_DEFERRED = "restore-then-defer"
    UNDO_PUSH = "restore-then-push-rejected"
    TO_CHECKS = "to-checks"
    NOT_DOABLE = "not-doable"
    RETRY_LATER = "retry-later"
    BRANCH_CHANGED = "branch-changed"
    CONFLICT = "conflict"
    PUSH_REJECTED = "push-rejected"
    TOO_LARGE = "too-large"
    OVER_BUDGET = "over-budget"
    DEFERRED = "deferred"


class Event(StrEnum):
    """What a result means to the sync stage."""

    BEGIN = "begin"
    PASSED = "passed"
    CHANGED = "changed"
    CLEAN = "clean"
    CONFLICT = "conflict"
    EXHAUSTED = "exhausted"
    CHARGED = "charged"
    REFUSED = "refused"
    DONE = "done"
    CANNOT_FIX = "cannot-fix"
    HANDOFF = "handoff"
    TOO_MANY_HANDOFFS = "too-many-handoffs"
    DEFERRED = "deferred"
    FINISHED = "finished"
    REJECTED = "rejected"
    REJECTED_LAST = "rejected-last"
    PUSH_FAILED = "push-failed"
    RESTORED = "restored"
    PR_CHANGES = "pr-changes"
    NOTHING_LEFT = "nothing-left"
    SETTLED = "settled"


ENDS = (
    Phase.TO_CHECKS,
    Phase.NOT_DOABLE,
    Phase.RETRY_LATER,
    Phase.BRANCH_CHANGED,
    Phase.CONFLICT,
    Phase.PUSH_REJECTED,
    Phase.TOO_LARGE,
    Phase.OVER_BUDGET,
    Phase.DEFERRED,
)
# Every end but success first restores the branch: a half-done rebase must not be pushed
# by the job's exit push (nor reported as commits left only local).
UNDO = {
    Phase.UNDO_RETRY: Phase.RETRY_LATER,
    Phase.UNDO_CONFLICT: Phase.CONFLICT,
    Phase.UNDO_TOO_LARGE: Phase.TOO_LARGE,
    Phase.UNDO_BUDGET: Phase.OVER_BUDGET,
    Phase.UNDO_DEFERRED: Phase.DEFERRED,
    Phase.UNDO_PUSH: Phase.PUSH_REJECTED,
}
EXITS: dict[Phase, dict[Event, Phase]] = {
    Phase.START: {Event.BEGIN: Phase.GUARD},
    Phase.GUARD: {Event.PASSED: Phase.SYNC_BASE, Event.CHANGED: Phase.BRANCH_CHANGED},
    Phase.SYNC_BASE: {
        Event.CLEAN: Phase.FINISH,
        Event.CONFLICT: Phase.CHARGE,
        Event.EXHAUSTED: Phase.UNDO_CONFLICT,
    },
    Phase.CHARGE: {Event.CHARGED: Phase.LAUNCH, Event.REFUSED: Phase.UNDO_BUDGET},
    Phase.LAUNCH: {
        Event.DONE: Phase.FINISH,
        Event.CANNOT_FIX: Phase.UNDO_RETRY,
        Event.HANDOFF: Phase.CHARGE,
        Event.TOO_MANY_HANDOFFS: Phase.UNDO_TOO_LARGE,
        Event.DEFERRED: Phase.UNDO_DEFERRED,
    },
    # SYNC-12: the flows after the rebase; the shared step closes or reopens the PR.
    Phase.FINISH: {
        Event.FINISHED: Phase.TO_CHECKS,
        Event.PR_CHANGES: Phase.SETTLE,
        Event.NOTHING_LEFT: Phase.NOT_DOABLE,
        Event.REJECTED: Phase.UNDO_RETRY,
        Event.REJECTED_LAST: Phase.UNDO_CONFLICT,
        Event.PUSH_FAILED: Phase.UNDO_PUSH,
    },
    Phase.SETTLE: {Event.SETTLED: Phase.TO_CHECKS},
    **{undo: {Event.RESTORED: end} for undo, end in UNDO.items()},
    **{end: {} for end in ENDS},
}


@dataclass(frozen=True)
class Sync:
    """The sync stage's memory: the conflicts, the resolver's reply and attempt, and where a
    stacked branch is being put (`stack`, applied to the state once it is pushed)."""

    inputs: Inputs
    state: IssueState
    phase: Phase = Phase.START
    conflicts: tuple[str, ...] = ()
    reply: ResolverReply | None = None
    resolved: bool = False
    attempt: int = 0
    note: str = ""
    stack: StackMove | None = None
    action: PrAction = "go"

    @property
    def continuation(self) -> int:
        """Continuations of the resolver within this stage (SYNC-8)."""
        return self.state.continuations.get(Stage.SYNC, 0)
