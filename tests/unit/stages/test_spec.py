"""The spec machine, driven with data only."""

from __future__ import annotations

from conveyor.core.config import Limits
from conveyor.core.replies import SPEC_END
from conveyor.core.session import SessionRole, SessionStatus
from conveyor.core.spec_tests import SpecTests
from conveyor.core.state import IssueState, Stage
from conveyor.core.stops import StopCode
from conveyor.stages import spec
from conveyor.stages.effects import (
    ChargeBudget,
    Charged,
    Checked,
    CheckSpecCommits,
    Done,
    LaunchSession,
    PostComment,
    PrOpened,
    ResetBranch,
    RunTests,
    SaveSpecFile,
    SessionEnded,
    SuiteRan,
)
from conveyor.stages.spec.table import Spec
from conveyor.stages.step import Asked, Inputs, SavedAt, Split, Step, Stopped
from tests.unit.stages.factory import (
    SPEC_BODY,
    SPEC_HEAD,
    START,
    failed,
    inputs,
    parts,
    replied,
    spec_reply,
)


def launched(state: IssueState | None = None, given: Inputs | None = None) -> Step[Spec]:
    """The spec stage started, charged, and its writer launched."""
    step = spec.start(given or inputs(), state or IssueState(stage=Stage.SPEC))
    assert isinstance(step.action, ChargeBudget)
    step = spec.transition(step.memory, Charged(step.memory.state))
    assert isinstance(step.action, LaunchSession)
    return step


def test_the_spec_writer_runs_as_a_writer_session_with_the_spec_reply_model() -> None:
    """SPEC-9: the session is a writer (it commits) replying per the spec schema."""
    action = launched().action
    assert isinstance(action, LaunchSession)
    assert (action.role, action.reply_model) == (SessionRole.WRITER, "spec")


def test_ready_checks_the_commits_posts_the_spec_opens_the_pr_and_saves_at_implement() -> None:
    """SPEC-51: check, post `## Spec` without the marker, draft PR, saved at implement."""
    step = spec.transition(launched().memory, replied(spec_reply()))
    assert isinstance(step.action, CheckSpecCommits)
    assert step.action.start_sha == START
    step = spec.transition(step.memory, Checked(ok=True))
    assert isinstance(step.action, PostComment)
    assert step.action.text.startswith("## Spec\n")
    assert SPEC_END not in step.action.text
    assert step.action.per_issue
    end = spec.transition(spec.transition(step.memory, Done()).memory, PrOpened(12, SPEC_HEAD))
    assert isinstance(end.action, SavedAt)
    assert end.action.stage is Stage.IMPLEMENT
    saved = end.action.state
    assert (saved.pr, saved.head_sha, saved.start_sha) == (12, SPEC_HEAD, START)
    assert saved.spec is not None
    assert "counts every item" in saved.spec
    assert saved.interfaces is not None
    assert "inventory/total.py" in saved.interfaces


def test_the_spec_tests_its_check_saw_are_saved_for_every_later_verify() -> None:
    """The passed check's record of the spec's tests by name rides into the state."""
    seen = SpecTests(files=("tests/test_t.py",), ids=("tests/test_t.py::test_t",), read=True)
    step = spec.transition(launched().memory, replied(spec_reply()))
    step = spec.transition(step.memory, Checked(ok=True, spec_tests=seen))
    end = spec.transition(spec.transition(step.memory, Done()).memory, PrOpened(12, SPEC_HEAD))
    assert isinstance(end.action, SavedAt)
    assert end.action.state.spec_tests == seen


def test_a_long_spec_is_kept_whole_in_spec_md_and_the_state_points_to_it() -> None:
    """SPEC-47, SPEC-48: past spec_limit_chars the spec goes to spec.md, not the state."""
    long_spec = SPEC_BODY.replace("Nothing.", "x" * 1500)
    given = inputs(limits=Limits(spec_limit_chars=1000))
    step = spec.transition(launched(given=given).memory, replied(spec_reply(spec=long_spec)))
    step = spec.transition(step.memory, Checked(ok=True))
    assert isinstance(step.action, SaveSpecFile)
    assert len(step.action.text) > 1000
    step = spec.transition(step.memory, Done())
    assert isinstance(step.action, PostComment)
    step = spec.transition(spec.transition(step.memory, Done()).memory, PrOpened(12, SPEC_HEAD))
    end = step.action
    assert isinstance(end, SavedAt)
    assert (end.state.spec, end.state.spec_file) == (None, "/runs/issue-7/spec.md")


def test_a_missing_end_marker_is_retried_once_then_stops_with_failed_twice() -> None:
    """SPEC-41..43: the second failed session stops the issue and posts no spec."""
    unmarked = spec_reply(spec=SPEC_BODY.replace(SPEC_END, ""))
    step = spec.transition(launched().memory, replied(unmarked))
    assert isinstance(step.action, ChargeBudget)
    step = spec.transition(step.memory, Charged(step.memory.state))
    assert isinstance(step.action, LaunchSession)
    assert "end marker" in step.action.task
    end = spec.transition(step.memory, replied(unmarked)).action
    assert isinstance(end, Stopped)
    assert (end.code, end.reason) == (StopCode.ERROR, "the spec writer failed twice")


def test_a_failed_commit_check_retries_with_the_offending_file_named() -> None:
    """SPEC-86, SPEC-87: the retry's task lists every finding of the check."""
    step = spec.transition(launched().memory, replied(spec_reply()))
    finding = "inventory/stock.py: not a test file, a new interface's stub or a helper it imports"
    step = spec.transition(step.memory, Checked(ok=False, findings=(finding,)))
    step = spec.transition(step.memory, Charged(step.memory.state))
    assert isinstance(step.action, LaunchSession)
    assert "inventory/stock.py" in step.action.task


def test_a_failed_session_twice_stops_with_failed_twice() -> None:
    """SPEC-41: a failed session counts like a bad reply."""
    step = spec.transition(launched().memory, failed())
    step = spec.transition(step.memory, Charged(step.memory.state))
    end = spec.transition(step.memory, failed()).action
    assert isinstance(end, Stopped)
    assert end.reason == "the spec writer failed twice"


def test_needs_info_resets_the_branch_and_asks_back_at_triage_with_the_spec_so_far() -> None:
    """SPEC-99, SPEC-100, TRI-12."""
    reply = spec_reply("needs-info", questions=["Count reserved items?"])
    step = spec.transition(launched().memory, replied(reply))
    assert step.action == ResetBranch(START)
    end = spec.transition(step.memory, Done()).action
    assert isinstance(end, Asked)
    assert end.questions == ("Count reserved items?",)
    assert end.state.stage is Stage.TRIAGE
    assert end.state.spec is not None
    assert "counts every item" in end.state.spec


def test_split_resets_the_branch_and_opens_ordered_parts() -> None:
    """SPEC-103..107: 2 to 5 parts with their order; no spec posted."""
    step = spec.transition(launched().memory, replied(spec_reply("split", sub_issues=parts(2))))
    assert step.action == ResetBranch(START)
    end = spec.transition(step.memory, Done()).action
    assert isinstance(end, Split)
    assert [(p.title, p.after) for p in end.parts] == [("Part 0", ()), ("Part 1", (0,))]


def test_a_split_with_one_part_is_a_failed_reply() -> None:
    """SPEC-30: the lower bound is checked by the stage."""
    step = spec.transition(launched().memory, replied(spec_reply("split", sub_issues=parts(1))))
    assert isinstance(step.action, ChargeBudget)


def test_a_sub_issue_that_splits_again_stops() -> None:
    """SPEC-103: a sub-issue's split stops it with "a sub-issue can't split again"."""
    state = IssueState(stage=Stage.SPEC, depth=1, parent=3)
    step = launched(state)
    step = spec.transition(step.memory, replied(spec_reply("split", sub_issues=parts(2))))
    assert step.action == ResetBranch(START)
    end = spec.transition(step.memory, Done()).action
    assert isinstance(end, Stopped)
    assert end.reason == "a sub-issue can't split again"


def test_no_work_runs_the_tests_then_resets_and_stops_with_no_work() -> None:
    """SPEC-114: the writer's tests must pass on the base, then stop no-work."""
    step = spec.transition(launched().memory, replied(spec_reply("no-work")))
    assert isinstance(step.action, RunTests)
    step = spec.transition(step.memory, SuiteRan(passed=True))
    assert step.action == ResetBranch(START)
    end = spec.transition(step.memory, Done()).action
    assert isinstance(end, Stopped)
    assert end.code is StopCode.NO_WORK


def test_no_work_whose_tests_fail_is_a_failed_session() -> None:
    """SPEC-114: failing tests on the base make the no-work reply a failure."""
    step = spec.transition(launched().memory, replied(spec_reply("no-work")))
    step = spec.transition(step.memory, SuiteRan(passed=False, detail="1 failed"))
    assert isinstance(step.action, ChargeBudget)


def test_a_handoff_past_max_continuations_stops_too_large() -> None:
    """IMPL-6, IMPL-8 for the spec writer: one continuation, then too-large."""
    step = spec.transition(launched().memory, SessionEnded(SessionStatus.HANDOFF))
    assert isinstance(step.action, ChargeBudget)
    step = spec.transition(step.memory, Charged(step.memory.state))
    assert isinstance(step.action, LaunchSession)
    assert step.action.continuation == 1
    assert "handoff.md" in step.action.task
    end = spec.transition(step.memory, replied(spec_reply(status="handoff"))).action
    assert isinstance(end, Stopped)
    assert end.code is StopCode.TOO_LARGE


def test_the_start_sha_recorded_earlier_is_where_resets_go() -> None:
    """SPEC-124: later starts read the start head back from the state."""
    state = IssueState(stage=Stage.SPEC, start_sha="c" * 40)
    step = spec.transition(
        launched(state).memory, replied(spec_reply("needs-info", questions=["?"]))
    )
    assert step.action == ResetBranch("c" * 40)
