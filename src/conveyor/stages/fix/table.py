"""The fix stage's table: phases, events, exits and memory (FIX-*)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from conveyor.core.flows import PrAction
from conveyor.core.replies import FixReply
from conveyor.core.state import IssueState, Stage
from conveyor.core.stops import StopCode
from conveyor.stages.step import Inputs


class Phase(StrEnum):
    """Where the fix is; phases from TO_REVIEW on are ends."""

    START = "start"
    CHARGE = "charge"
    LAUNCH = "launch"
    PUSH = "push"
    SETTLE = "settle-pr"
    POST = "post-fix"
    RESET = "reset-before-stop"
    TO_REVIEW = "to-rereview"
    NOTHING_OPEN = "nothing-open"
    NOT_DOABLE = "not-doable"
    OUT_OF_ROUNDS = "out-of-rounds"
    ACCEPTANCE_DISPUTED = "acceptance-disputed"
    TOO_LARGE = "too-large"
    FAILED = "failed"
    OVER_BUDGET = "over-budget"
    DEFERRED = "deferred"


class Event(StrEnum):
    """What a result means to the fix stage."""

    BEGIN = "begin"
    NOTHING_OPEN = "nothing-open"
    NO_ROUNDS = "no-rounds-left"
    CHARGED = "charged"
    REFUSED = "refused"
    DONE = "done"
    DISPUTED_ACCEPTANCE = "disputed-acceptance"
    HANDOFF = "handoff"
    TOO_MANY_HANDOFFS = "too-many-handoffs"
    FAILED = "failed"
    EXHAUSTED = "exhausted"
    DEFERRED = "deferred"
    PUSHED = "pushed"
    PR_CHANGES = "pr-changes"
    NOTHING_LEFT = "nothing-left"
    SETTLED = "settled"
    POSTED = "posted"
    RESET = "reset"


ENDS = (
    Phase.TO_REVIEW,
    Phase.NOTHING_OPEN,
    Phase.NOT_DOABLE,
    Phase.OUT_OF_ROUNDS,
    Phase.ACCEPTANCE_DISPUTED,
    Phase.TOO_LARGE,
    Phase.FAILED,
    Phase.OVER_BUDGET,
    Phase.DEFERRED,
)
EXITS: dict[Phase, dict[Event, Phase]] = {
    Phase.START: {
        Event.BEGIN: Phase.CHARGE,
        Event.NOTHING_OPEN: Phase.NOTHING_OPEN,
        Event.NO_ROUNDS: Phase.OUT_OF_ROUNDS,
    },
    Phase.CHARGE: {Event.CHARGED: Phase.LAUNCH, Event.REFUSED: Phase.OVER_BUDGET},
    Phase.LAUNCH: {
        Event.DONE: Phase.PUSH,
        Event.DISPUTED_ACCEPTANCE: Phase.RESET,
        Event.HANDOFF: Phase.CHARGE,
        Event.TOO_MANY_HANDOFFS: Phase.TOO_LARGE,
        Event.FAILED: Phase.CHARGE,
        Event.EXHAUSTED: Phase.FAILED,
        Event.DEFERRED: Phase.DEFERRED,
    },
    # FIX-12, FLOW-7: the flows after the fix; the shared step closes or reopens the PR.
    Phase.PUSH: {
        Event.PUSHED: Phase.POST,
        Event.PR_CHANGES: Phase.SETTLE,
        Event.NOTHING_LEFT: Phase.NOT_DOABLE,
    },
    Phase.SETTLE: {Event.SETTLED: Phase.POST},
    Phase.POST: {Event.POSTED: Phase.TO_REVIEW},
    Phase.RESET: {Event.RESET: Phase.ACCEPTANCE_DISPUTED},
    **{end: {} for end in ENDS},
}


@dataclass(frozen=True)
class Fix:
    """The fix stage's memory; `reviewed_sha` is the head the findings were raised on."""

    inputs: Inputs
    state: IssueState
    phase: Phase = Phase.START
    reply: FixReply | None = None
    refused: tuple[str, ...] = ()
    failures: int = 0
    attempt: int = 0
    stop: StopCode | None = None
    note: str = ""
    action: PrAction = "go"

    @property
    def continuation(self) -> int:
        """Continuations of the fix stage so far (IMPL-6 holds for every writer)."""
        return self.state.continuations.get(Stage.FIX, 0)

    @property
    def reviewed_sha(self) -> str:
        """The head the open findings were raised on: the fix diff starts here."""
        return self.state.head_sha or self.inputs.head_sha
