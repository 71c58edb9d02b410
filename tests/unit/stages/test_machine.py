"""The plumbing stage machines share: the move, the charge, a writer's session ends, launches."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

import pytest

from conveyor.core.config import Commands, Limits, Role
from conveyor.core.replies import ImplementReply
from conveyor.core.session import SessionRole, SessionStatus
from conveyor.core.state import IssueState, Stage
from conveyor.core.stops import StopCode
from conveyor.stages import launch
from conveyor.stages.effects import (
    Began,
    ChargeBudget,
    Charged,
    Done,
    LaunchSession,
    Refused,
    Result,
    SessionEnded,
)
from conveyor.stages.machine import Machine, cannot_take, charge
from conveyor.stages.prompts.common import Prompt
from conveyor.stages.step import (
    IllegalMove,
    Inputs,
    Released,
    Stopped,
    Table,
    branch_changed,
    deferred,
    over_budget,
)
from conveyor.stages.writer import Writer
from tests.unit.stages.factory import failed, implement_reply, inputs, replied, triage_reply


class Phase(StrEnum):
    """A toy stage's phases."""

    START = "start"
    CHARGE = "charge"
    LAUNCH = "launch"
    DONE = "done"
    LATER = "later"


class Event(StrEnum):
    """A toy stage's events, named as the shared helpers expect."""

    BEGIN = "begin"
    CHARGED = "charged"
    REFUSED = "refused"
    DONE = "done"
    FAILED = "failed"
    DEFERRED = "deferred"
    HANDOFF = "handoff"
    TOO_MANY_HANDOFFS = "too-many-handoffs"


@dataclass(frozen=True)
class Toy:
    """A toy writer stage's memory."""

    inputs: Inputs
    state: IssueState
    phase: Phase = Phase.START
    findings: tuple[str, ...] = ("earlier",)
    attempt: int = 0
    note: str = ""

    @property
    def continuation(self) -> int:
        """Continuations of the toy (it counts as implement)."""
        return self.state.continuations.get(Stage.IMPLEMENT, 0)


def _replied(run: Toy, reply: ImplementReply) -> tuple[Event, Toy]:
    return Event.DONE, replace(run, note=reply.summary)


WRITER = Writer(
    Stage.IMPLEMENT,
    ImplementReply,
    Event,
    _replied,
    lambda run, ended: (Event.FAILED, replace(run, note=ended.error or "no valid reply")),
    lambda run: replace(run, findings=()),
)


def _classify(run: Toy, result: Result) -> tuple[Event, Toy]:
    match result:
        case Began():
            return Event.BEGIN, run
        case Charged() | Refused():
            return charge(run, result, Event)
        case Done():
            return Event.DONE, run
    raise cannot_take("the toy stage", result, run.phase)


TABLE: Table[Phase, Event, Toy] = Table(
    name="toy",
    start=Phase.START,
    exits={
        Phase.START: {Event.BEGIN: Phase.CHARGE},
        Phase.CHARGE: {Event.CHARGED: Phase.LAUNCH, Event.REFUSED: Phase.LATER},
        Phase.LAUNCH: {Event.DONE: Phase.DONE},
        Phase.DONE: {},
        Phase.LATER: {},
    },
    effects={
        Phase.CHARGE: lambda run: ChargeBudget(Role.IMPLEMENT),
        Phase.LAUNCH: lambda run: launch.writer("toy", Role.IMPLEMENT, Prompt("s", "t"), run),
    },
    ends={Phase.DONE: deferred, Phase.LATER: over_budget},
)
TOY = Machine(TABLE, _classify, Toy)
STATE = IssueState(stage=Stage.IMPLEMENT)


def _ended(run: Toy, ended: SessionEnded) -> tuple[Event, Toy]:
    return WRITER.ended(run, ended)


def test_the_start_moves_on_begin_and_asks_the_next_phase_s_effect() -> None:
    """A machine starts with Began: the memory moves to the charge phase and asks its effect."""
    step = TOY.start(inputs(), STATE)
    assert step.memory.phase is Phase.CHARGE
    assert step.action == ChargeBudget(Role.IMPLEMENT)


def test_a_saved_charge_counts_an_attempt_and_launches() -> None:
    """A saved charge keeps its state, counts one more attempt, and the next phase launches."""
    charged = STATE.model_copy(update={"pr": 12})
    step = TOY.transition(TOY.start(inputs(), STATE).memory, Charged(charged))
    assert (step.memory.attempt, step.memory.state.pr) == (1, 12)
    action = step.action
    assert isinstance(action, LaunchSession)
    assert (action.attempt, action.role, action.reply_model) == (1, SessionRole.WRITER, "toy")


def test_a_refused_charge_stops_over_budget_with_its_reason() -> None:
    """A refused charge ends as a budget stop that says why."""
    step = TOY.transition(TOY.start(inputs(), STATE).memory, Refused("the day pool is spent"))
    assert step.action == Stopped(StopCode.BUDGET, "the day pool is spent", STATE)


def test_a_result_the_phase_has_no_reading_or_exit_for_is_an_illegal_move() -> None:
    """A result the stage cannot read, or an event without an exit, raises instead of guessing."""
    run = TOY.start(inputs(), STATE).memory
    with pytest.raises(IllegalMove, match="the toy stage cannot take SessionEnded in 'charge'"):
        TOY.transition(run, failed())
    with pytest.raises(IllegalMove, match="no exit from 'charge' on 'done'"):
        TOY.transition(run, Done())


def test_a_rate_limited_writer_session_defers_with_its_error() -> None:
    """A rate limit is a deferral carrying the session's error, or a plain reason."""
    run = Toy(inputs(), STATE)
    limited = SessionEnded(SessionStatus.RATE_LIMITED, None, "retry at noon")
    assert _ended(run, limited) == (Event.DEFERRED, replace(run, note="retry at noon"))
    bare = SessionEnded(SessionStatus.RATE_LIMITED)
    assert _ended(run, bare) == (Event.DEFERRED, replace(run, note="rate limited"))


@pytest.mark.parametrize(
    "ended",
    [
        SessionEnded(SessionStatus.HANDOFF),
        SessionEnded(SessionStatus.CONTEXT_STOPPED),
        replied(implement_reply("handoff")),
    ],
)
def test_a_writer_handoff_counts_a_continuation_until_max_continuations(
    ended: SessionEnded,
) -> None:
    """A handoff (by status or by reply) continues once, forgetting findings; then too many."""
    run = Toy(inputs(limits=Limits(max_continuations=1)), STATE)
    event, run = _ended(run, ended)
    assert (event, run.continuation, run.findings) == (Event.HANDOFF, 1, ())
    assert _ended(run, ended) == (Event.TOO_MANY_HANDOFFS, run)


def test_a_writer_reply_goes_to_the_stage_and_anything_else_is_a_failure() -> None:
    """The stage reads its own reply; a failed session or another kind of reply is a failure."""
    run = Toy(inputs(), STATE)
    assert _ended(run, replied(implement_reply("done", summary="all green")))[0] is Event.DONE
    assert _ended(run, replied(triage_reply())) == (
        Event.FAILED,
        replace(run, note="no valid reply"),
    )
    assert _ended(run, failed("boom")) == (Event.FAILED, replace(run, note="boom"))


def test_a_writer_is_told_only_the_commands_that_are_configured_in_order() -> None:
    """Unset commands are left out; the rest keep the setup, test, lint, typecheck order."""
    configured = Commands(setup="make", test="pytest -q", typecheck="mypy .")
    assert launch.commands(configured) == (
        ("setup", "make"),
        ("test", "pytest -q"),
        ("typecheck", "mypy ."),
    )


def test_a_reader_launch_is_never_a_continuation_and_may_name_its_reply_model() -> None:
    """A reader's session is a fresh reader with its own reply model."""
    session = launch.reader("review-scope", Role.REVIEW, Prompt("s", "t"), 2, model="review")
    assert (session.role, session.reply_model, session.attempt) == (SessionRole.READER, "review", 2)
    assert (session.continuation, session.system_prompt, session.task) == (0, "s", "t")


def test_the_shared_ends_keep_the_state_and_say_why() -> None:
    """Deferral releases with the reason; a moved branch stops with the guard's findings."""
    run = Toy(inputs(), STATE, note="head moved")
    assert deferred(run) == Released(STATE, "head moved", paused=True)
    stopped = branch_changed(run)
    assert (stopped.code, stopped.details, stopped.state) == (
        StopCode.BRANCH_CHANGED,
        "head moved",
        STATE,
    )
