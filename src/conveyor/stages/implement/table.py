"""The implement stage's table: phases, events, exits and memory (IMPL-*, PR-4, PR-6)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from conveyor.core.replies import ImplementReply
from conveyor.core.state import IssueState, Stage
from conveyor.stages.step import Inputs


class Phase(StrEnum):
    """Where the implement stage is (open-pr included); phases from TO_REVIEW on are ends."""

    START = "start"
    CHARGE = "charge"
    LAUNCH = "launch"
    CHECK_TESTS = "check-spec-tests"
    PUSH = "push"
    FINISH_PR = "finish-pr"
    CLOSE_PR = "close-pr"
    POST_BLOCKED = "post-blocked"
    TO_REVIEW = "pr-ready"
    BACK_TO_SPEC = "back-to-spec"
    NOT_DOABLE = "not-doable"
    TOO_LARGE = "too-large"
    FAILED = "failed"
    TESTS_CHANGED = "spec-tests-changed"
    OVER_BUDGET = "over-budget"
    DEFERRED = "deferred"


class Event(StrEnum):
    """What a result means to the implement stage."""

    BEGIN = "begin"
    CHARGED = "charged"
    REFUSED = "refused"
    DONE = "done"
    BLOCKED = "blocked"
    HANDOFF = "handoff"
    TOO_MANY_HANDOFFS = "too-many-handoffs"
    FAILED = "failed"
    EXHAUSTED = "exhausted"
    DEFERRED = "deferred"
    PASSED = "passed"
    CHANGED = "changed"
    WIKI_ONLY = "wiki-only"
    TESTS_CHANGED = "tests-changed"
    TESTS_STILL_CHANGED = "tests-still-changed"
    NOTHING = "nothing"


ENDS = (
    Phase.TO_REVIEW,
    Phase.BACK_TO_SPEC,
    Phase.NOT_DOABLE,
    Phase.TOO_LARGE,
    Phase.FAILED,
    Phase.TESTS_CHANGED,
    Phase.OVER_BUDGET,
    Phase.DEFERRED,
)
EXITS: dict[Phase, dict[Event, Phase]] = {
    Phase.START: {Event.BEGIN: Phase.CHARGE},
    Phase.CHARGE: {Event.CHARGED: Phase.LAUNCH, Event.REFUSED: Phase.OVER_BUDGET},
    Phase.LAUNCH: {
        Event.DONE: Phase.CHECK_TESTS,
        Event.BLOCKED: Phase.POST_BLOCKED,
        Event.HANDOFF: Phase.CHARGE,
        Event.TOO_MANY_HANDOFFS: Phase.TOO_LARGE,
        Event.FAILED: Phase.CHARGE,
        Event.EXHAUSTED: Phase.FAILED,
        Event.DEFERRED: Phase.DEFERRED,
    },
    Phase.CHECK_TESTS: {
        Event.PASSED: Phase.PUSH,
        Event.TESTS_CHANGED: Phase.CHARGE,
        Event.TESTS_STILL_CHANGED: Phase.TESTS_CHANGED,
    },
    # The shared flow step (FLOW-3): neither stops, wiki only closes the PR, code readies it.
    Phase.PUSH: {
        Event.CHANGED: Phase.FINISH_PR,
        Event.WIKI_ONLY: Phase.CLOSE_PR,
        Event.NOTHING: Phase.NOT_DOABLE,
    },
    Phase.FINISH_PR: {Event.DONE: Phase.TO_REVIEW},
    Phase.CLOSE_PR: {Event.DONE: Phase.TO_REVIEW},
    Phase.POST_BLOCKED: {Event.DONE: Phase.BACK_TO_SPEC},
    **{end: {} for end in ENDS},
}


@dataclass(frozen=True)
class Implement:
    """The implement stage's memory."""

    inputs: Inputs
    state: IssueState
    phase: Phase = Phase.START
    reply: ImplementReply | None = None
    findings: tuple[str, ...] = ()
    failures: int = 0
    attempt: int = 0
    note: str = ""

    @property
    def continuation(self) -> int:
        """Continuations of the implement stage so far (IMPL-6, IMPL-9)."""
        return self.state.continuations.get(Stage.IMPLEMENT, 0)

    @property
    def spec_sha(self) -> str:
        """The head the spec stage left: the spec writer's tests and stubs."""
        return self.state.head_sha or self.inputs.head_sha

    @property
    def start_sha(self) -> str:
        """Where the spec began (the base the spec writer's tests are measured from)."""
        return self.state.start_sha or self.spec_sha
