"""The table acceptance and security share: one fresh reader judges the whole change."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from conveyor.core.findings import Judged, Verdict
from conveyor.core.replies import AcceptReply, SecurityReply
from conveyor.core.state import IssueState
from conveyor.stages.step import Inputs


class Phase(StrEnum):
    """Where the judging stage is; phases from PASSED on are ends."""

    START = "start"
    PREPARE = "prepare-review"
    CHARGE = "charge"
    LAUNCH = "launch"
    POST = "post-verdict"
    PASSED = "passed"
    TO_FIX = "to-fix"
    OUT_OF_ROUNDS = "out-of-rounds"
    FAILED = "failed"
    OVER_BUDGET = "over-budget"
    DEFERRED = "deferred"


class Event(StrEnum):
    """What a result means to a judging stage."""

    BEGIN = "begin"
    READY = "ready"
    CHARGED = "charged"
    REFUSED = "refused"
    REPLIED = "replied"
    RETRY = "retry"
    FAILED = "failed"
    DEFERRED = "deferred"
    PASSED = "passed"
    FIX = "fix"
    OUT_OF_ROUNDS = "out-of-rounds"


ENDS = (
    Phase.PASSED,
    Phase.TO_FIX,
    Phase.OUT_OF_ROUNDS,
    Phase.FAILED,
    Phase.OVER_BUDGET,
    Phase.DEFERRED,
)
EXITS: dict[Phase, dict[Event, Phase]] = {
    Phase.START: {Event.BEGIN: Phase.PREPARE},
    Phase.PREPARE: {Event.READY: Phase.CHARGE},
    Phase.CHARGE: {Event.CHARGED: Phase.LAUNCH, Event.REFUSED: Phase.OVER_BUDGET},
    Phase.LAUNCH: {
        Event.REPLIED: Phase.POST,
        Event.RETRY: Phase.CHARGE,
        Event.FAILED: Phase.FAILED,
        Event.DEFERRED: Phase.DEFERRED,
    },
    Phase.POST: {
        Event.PASSED: Phase.PASSED,
        Event.FIX: Phase.TO_FIX,
        Event.OUT_OF_ROUNDS: Phase.OUT_OF_ROUNDS,
    },
    **{end: {} for end in ENDS},
}
VERDICT_EVENTS = {
    Verdict.CLEAN: Event.PASSED,
    Verdict.FIX: Event.FIX,
    Verdict.OUT_OF_ROUNDS: Event.OUT_OF_ROUNDS,
    Verdict.CAME_BACK: Event.OUT_OF_ROUNDS,
}
READER_ATTEMPTS = 2


@dataclass(frozen=True)
class Judging:
    """A judging stage's memory: the diff read, the reply and the verdict it led to."""

    inputs: Inputs
    state: IssueState
    phase: Phase = Phase.START
    diff_file: str = ""
    head_sha: str = ""
    reply: AcceptReply | SecurityReply | None = None
    judged: Judged | None = None
    failures: int = 0
    attempt: int = 0
    note: str = ""

    @property
    def head(self) -> str:
        """The head the verdict is about."""
        return self.head_sha or self.state.head_sha or self.inputs.head_sha
