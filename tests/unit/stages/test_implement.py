"""The implement machine (with open-pr), driven with data only."""

from __future__ import annotations

from conveyor.core.session import SessionRole, SessionStatus
from conveyor.core.state import IssueState, Stage
from conveyor.core.stops import StopCode
from conveyor.stages import implement
from conveyor.stages.effects import (
    ChargeBudget,
    Charged,
    Checked,
    CheckSpecTests,
    Done,
    LaunchSession,
    PostComment,
    PrSettled,
    PushBranch,
    Pushed,
    SessionEnded,
    SettlePr,
)
from conveyor.stages.implement.table import Implement
from conveyor.stages.step import SavedAt, Step, Stopped
from tests.unit.stages.factory import SPEC_HEAD, START, failed, implement_reply, inputs, replied

STATE = IssueState(stage=Stage.IMPLEMENT, start_sha=START, head_sha=SPEC_HEAD, pr=12, spec="x")


def launched(state: IssueState = STATE) -> Step[Implement]:
    """Implement started, charged, and its writer launched."""
    step = implement.start(inputs(), state)
    assert isinstance(step.action, ChargeBudget)
    step = implement.transition(step.memory, Charged(step.memory.state))
    assert isinstance(step.action, LaunchSession)
    return step


def test_the_implementer_is_a_writer_given_the_spec() -> None:
    """IMPL-1, IMPL-16: a writer session whose task carries the spec."""
    step = launched(STATE.model_copy(update={"spec": "## Behaviour\n- totals add up"}))
    assert isinstance(step.action, LaunchSession)
    assert step.action.role is SessionRole.WRITER
    assert "totals add up" in step.action.task


def test_a_long_spec_is_read_from_spec_md() -> None:
    """SPEC-50: with spec_file set the prompt points at spec.md."""
    step = launched(STATE.model_copy(update={"spec": None, "spec_file": "spec.md"}))
    assert isinstance(step.action, LaunchSession)
    assert "/runs/issue-7/spec.md" in step.action.task


def test_done_checks_the_spec_tests_pushes_and_readies_the_pr_then_saves_at_review() -> None:
    """IMPL-14, PR-4: open-pr records changed_paths and moves the issue to review."""
    step = implement.transition(launched().memory, replied(implement_reply()))
    assert step.action == CheckSpecTests(START, SPEC_HEAD)
    step = implement.transition(step.memory, Checked(ok=True))
    assert step.action == PushBranch(SPEC_HEAD)
    pushed = Pushed(
        "c" * 40, ("inventory/total.py", "tests/test_total.py"), ("inventory/total.py",)
    )
    step = implement.transition(step.memory, pushed)
    assert step.action == SettlePr("go", "Add a total (#7)", "Closes #7\n\nAdded total().\n")
    end = implement.transition(step.memory, PrSettled(12, open=True)).action
    assert isinstance(end, SavedAt)
    assert end.stage is Stage.REVIEW
    assert end.state.changed_paths == ("inventory/total.py", "tests/test_total.py")
    assert (end.state.head_sha, end.state.implemented) == ("c" * 40, True)


def test_a_change_of_nothing_stops_not_doable() -> None:
    """PR-6, FLOW-4: nothing new since the spec's head stops the issue."""
    step = implement.transition(launched().memory, replied(implement_reply()))
    step = implement.transition(step.memory, Checked(ok=True))
    end = implement.transition(step.memory, Pushed(SPEC_HEAD, ("tests/test_total.py",), ())).action
    assert isinstance(end, Stopped)
    assert end.code is StopCode.NOT_DOABLE


def test_changed_spec_tests_are_retried_once_then_stop() -> None:
    """IMPL-12: the implementer may not change the spec writer's tests."""
    finding = ("tests/test_total.py: the spec writer's test was changed; put it back as it was",)
    step = implement.transition(launched().memory, replied(implement_reply()))
    step = implement.transition(step.memory, Checked(ok=False, findings=finding))
    step = implement.transition(step.memory, Charged(step.memory.state))
    assert isinstance(step.action, LaunchSession)
    assert "tests/test_total.py" in step.action.task
    step = implement.transition(step.memory, replied(implement_reply()))
    end = implement.transition(step.memory, Checked(ok=False, findings=finding)).action
    assert isinstance(end, Stopped)
    assert end.code is StopCode.ERROR


def test_a_writer_past_its_continuations_stops_too_large() -> None:
    """IMPL-5, IMPL-6, IMPL-8: one continuation from handoff.md, then too-large."""
    step = implement.transition(launched().memory, SessionEnded(SessionStatus.CONTEXT_STOPPED))
    step = implement.transition(step.memory, Charged(step.memory.state))
    assert isinstance(step.action, LaunchSession)
    assert step.action.continuation == 1
    assert step.memory.state.continuations[Stage.IMPLEMENT] == 1
    end = implement.transition(step.memory, replied(implement_reply("handoff"))).action
    assert isinstance(end, Stopped)
    assert end.code is StopCode.TOO_LARGE


def test_blocked_goes_back_to_the_spec_with_a_comment() -> None:
    """IMPL-12: a wrong spec test sends the issue back to the spec writer."""
    reply = implement_reply("blocked", blocked_reason="test_total expects a float")
    step = implement.transition(launched().memory, replied(reply))
    assert isinstance(step.action, PostComment)
    assert "test_total expects a float" in step.action.text
    end = implement.transition(step.memory, Done()).action
    assert isinstance(end, SavedAt)
    assert end.stage is Stage.SPEC


def test_a_failed_writer_is_retried_once_then_stops_with_error() -> None:
    """A failed session gets one more launch before the issue stops."""
    step = implement.transition(launched().memory, failed())
    step = implement.transition(step.memory, Charged(step.memory.state))
    end = implement.transition(step.memory, failed()).action
    assert isinstance(end, Stopped)
    assert end.code is StopCode.ERROR
