"""The triage machine, driven with data only."""

from __future__ import annotations

from conveyor.core.config import Role
from conveyor.core.session import SessionRole, SessionStatus
from conveyor.core.state import Charge, IssueState, Pool, Rounds, Stage
from conveyor.core.stops import StopCode
from conveyor.stages import triage
from conveyor.stages.effects import (
    ChargeBudget,
    Charged,
    Done,
    LaunchSession,
    PostComment,
    Refused,
    SessionEnded,
)
from conveyor.stages.step import Asked, Released, SavedAt, Step, Stopped
from tests.unit.stages.factory import failed, inputs, replied, triage_reply

STATE = IssueState()


def launched(state: IssueState = STATE) -> Step[triage.Triage]:
    """Triage started, charged, and its session launched."""
    step = triage.start(inputs(), state)
    assert step.action == ChargeBudget(Role.TRIAGE)
    step = triage.transition(step.memory, Charged(state))
    assert isinstance(step.action, LaunchSession)
    return step


def test_ready_posts_the_triage_comment_then_saves_at_spec_with_the_notes() -> None:
    """A ready decision posts the signed comment and hands the notes to the spec writer."""
    step = triage.transition(launched().memory, replied(triage_reply("ready")))
    assert isinstance(step.action, PostComment)
    assert step.action.role == "triage"
    end = triage.transition(step.memory, Done()).action
    assert isinstance(end, SavedAt)
    assert end.stage is Stage.SPEC
    assert end.state.plan == "Lands in inventory/stock.py."
    assert not end.state.split_suggested


def test_the_triage_comment_states_how_many_comments_were_withheld() -> None:
    """TRUST-5: the comment says how many untrusted comments agents never saw."""
    step = triage.transition(launched().memory, replied(triage_reply("ready")))
    assert isinstance(step.action, PostComment)
    assert "2 comments were withheld" in step.action.text


def test_the_triage_session_is_a_reader_with_the_triage_reply_model() -> None:
    """TRI-1: one read-only session, charged to the triage budget."""
    action = launched().action
    assert isinstance(action, LaunchSession)
    assert (action.role, action.reply_model) == (SessionRole.READER, "triage")


def test_split_suggested_goes_on_to_the_spec_with_the_reason() -> None:
    """TRI-4: split-suggested is recorded and the issue goes on to the spec writer."""
    reply = triage_reply("split-suggested", reason="three separate modules")
    step = triage.transition(launched().memory, replied(reply))
    end = triage.transition(step.memory, Done()).action
    assert isinstance(end, SavedAt)
    assert end.state.split_suggested
    assert "three separate modules" in (end.state.plan or "")


def test_needs_info_asks_the_questions() -> None:
    """TRI-2: needs-info ends asked, with the session's questions."""
    reply = triage_reply("needs-info", questions=["Which unit?", "Rounded how?"])
    step = triage.transition(launched().memory, replied(reply))
    end = triage.transition(step.memory, Done()).action
    assert isinstance(end, Asked)
    assert end.questions == ("Which unit?", "Rounded how?")


def test_reject_stops_with_triage_rejected_and_the_reason() -> None:
    """TRI-2: reject stops the issue with triage-rejected."""
    reply = triage_reply("reject", reason="this is a support question")
    step = triage.transition(launched().memory, replied(reply))
    end = triage.transition(step.memory, Done()).action
    assert isinstance(end, Stopped)
    assert (end.code, end.reason) == (StopCode.TRIAGE_REJECTED, "this is a support question")


def test_three_failed_attempts_stop_with_triage_limit() -> None:
    """TRI-9: a failure is retried (charged again) until the third stops the issue."""
    step = launched()
    for _ in range(2):
        step = triage.transition(step.memory, failed())
        assert isinstance(step.action, ChargeBudget)
        step = triage.transition(step.memory, Charged(step.memory.state))
    end = triage.transition(step.memory, failed()).action
    assert isinstance(end, Stopped)
    assert end.code is StopCode.TRIAGE_LIMIT
    assert end.state.rounds.triage_attempts == 3


def test_an_issue_with_its_attempts_used_up_stops_before_any_session() -> None:
    """TRI-9: attempts counted by earlier jobs still count."""
    state = IssueState(rounds=Rounds(triage_attempts=3))
    end = triage.start(inputs(), state).action
    assert isinstance(end, Stopped)
    assert end.code is StopCode.TRIAGE_LIMIT


def test_a_refused_charge_stops_with_budget() -> None:
    """BUD-3: a launch past the ceiling stops the issue with budget."""
    step = triage.start(inputs(), STATE)
    end = triage.transition(step.memory, Refused("past the ceiling")).action
    assert isinstance(end, Stopped)
    assert (end.code, end.reason) == (StopCode.BUDGET, "past the ceiling")


def test_a_rate_limited_session_releases_the_issue_without_counting_an_attempt() -> None:
    """SPEC-44 (and triage alike): a provider limit defers, it is not a failure."""
    ended = SessionEnded(SessionStatus.RATE_LIMITED, None, "429")
    end = triage.transition(launched().memory, ended).action
    assert isinstance(end, Released)
    assert end.state.rounds.triage_attempts == 0


def test_needs_info_without_questions_is_a_failed_attempt_whose_retry_is_told_why() -> None:
    """The quick check refuses needs-info with no questions; the retry's task names it."""
    step = triage.transition(launched().memory, replied(triage_reply("needs-info")))
    assert isinstance(step.action, ChargeBudget)
    step = triage.transition(step.memory, Charged(step.memory.state))
    assert isinstance(step.action, LaunchSession)
    assert "needs-info needs 1 to 5 questions" in step.action.task


def test_a_sub_issue_cannot_be_suggested_for_another_split() -> None:
    """TRI-7: triage's split-suggested on a sub-issue is refused."""
    reply = triage_reply("split-suggested", reason="big")
    assert triage.reply_findings(reply, depth=1)
    assert not triage.reply_findings(reply, depth=0)


def test_the_session_usage_is_recorded_beside_its_launch_charge() -> None:
    """BUD-9: the charge keeps the budget; the tokens the session reported go beside it."""
    charged = STATE.model_copy(
        update={"charges": (Charge(role="triage", pool=Pool.ISSUE, tokens=50_000),)}
    )
    step = triage.start(inputs(), STATE)
    step = triage.transition(step.memory, Charged(charged))
    ended = SessionEnded(SessionStatus.REPLIED, triage_reply("ready"), None, 1234)
    step = triage.transition(step.memory, ended)
    assert step.memory.state.charges[0].used == 1234
    assert step.memory.state.charges[0].tokens == 50_000


OVERSIZE = "a person sized it xl (label `size/xl`), above the intake's max_size l: split it"


def test_a_ready_for_an_issue_sized_above_max_size_becomes_a_split_with_that_reason() -> None:
    """Issue 48 (BB-REC-5): an oversized issue goes on only as a split; the comment says why."""
    state = IssueState()
    step = triage.start(inputs(oversize=OVERSIZE), state)
    step = triage.transition(step.memory, Charged(state))
    assert isinstance(step.action, LaunchSession)
    assert "must be split" in step.action.task
    step = triage.transition(step.memory, replied(triage_reply("ready")))
    assert isinstance(step.action, PostComment)
    assert "Triage: split-suggested" in step.action.text
    assert OVERSIZE in step.action.text
    end = triage.transition(step.memory, Done()).action
    assert isinstance(end, SavedAt)
    assert end.state.split_suggested


def test_a_sub_issue_sized_above_max_size_is_not_split_again() -> None:
    """TRI-7 wins: a sub-issue's ready stands whatever its size label says."""
    state = IssueState(parent=1, depth=1)
    step = triage.start(inputs(oversize=OVERSIZE), state)
    step = triage.transition(step.memory, Charged(state))
    step = triage.transition(step.memory, replied(triage_reply("ready")))
    end = triage.transition(step.memory, Done()).action
    assert isinstance(end, SavedAt)
    assert not end.state.split_suggested


def test_triage_is_given_the_branch_s_commits_and_the_handoff_when_a_writer_worked_before() -> None:
    """TRI-14: after too-large, the commits and the kept handoff are in the task; never the
    handoff alone (an old file with no work on the branch), and nothing on a fresh issue."""

    def task(**facts: object) -> str:
        step = triage.start(inputs(**facts), STATE)
        step = triage.transition(step.memory, Charged(STATE))
        assert isinstance(step.action, LaunchSession)
        return step.action.task

    told = task(branch_commits=("abc1234 Sum the stock",), handoff_kept=True)
    assert "abc1234 Sum the stock" in told
    assert "/runs/issue-7/handoff.md" in told
    assert "/runs/issue-7/handoff.md" not in task(handoff_kept=True)
    assert "handoff" not in task()
