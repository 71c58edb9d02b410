"""The checks machine: verify, the CI gate as a hold, unrelated failures and the CI fixer."""

from __future__ import annotations

from conveyor.core.ci_gate import Verdict
from conveyor.core.config import Role
from conveyor.core.restart import restart
from conveyor.core.session import SessionRole, SessionStatus
from conveyor.core.state import CiWait, IssueState, Rounds, Stage
from conveyor.core.state import Stopped as Stopped_
from conveyor.core.stops import StopCode
from conveyor.stages import checks
from conveyor.stages.effects import (
    ChargeBudget,
    Charged,
    Checked,
    Done,
    LaunchSession,
    PostComment,
    PushBranch,
    Pushed,
    Refused,
    SessionEnded,
)
from conveyor.stages.effects_merge import CiRead, GuardBranch, ReadCi, Verified, VerifyHead
from conveyor.stages.step import Released, SavedAt, Stopped
from tests.unit.stages.factory import failed, inputs, replied
from tests.unit.stages.factory_merge import (
    HEAD,
    NEW,
    NOW,
    check_fix_reply,
    gate,
    run_through,
)

STATE = IssueState(stage=Stage.CHECKS, head_sha=HEAD, pr=12)
GREEN = Verified(True, HEAD, "verify: passed")
RED = Verified(False, HEAD, "verify: failed", ("test: failed (exit 1)",))


def test_the_branch_is_guarded_before_anything_runs() -> None:
    """STOP: the first effect compares the forge's PR head with the recorded one."""
    step = checks.start(inputs(head_sha=HEAD), STATE)
    assert step.action == GuardBranch(HEAD)
    end = checks.transition(step.memory, Checked(False, ("the PR head is x",))).action
    assert isinstance(end, Stopped)
    assert end.code is StopCode.BRANCH_CHANGED


def test_verify_then_a_green_gate_goes_to_accept_with_the_verified_sha() -> None:
    """CHK-1, CHK-6, CHK-16: verify, CI on the exact head, a signed report, then accept."""
    step = checks.start(inputs(head_sha=HEAD), STATE)
    step, asked = run_through(
        step,
        checks.transition,
        [Checked(True), GREEN, CiRead(gate(Verdict.PASSED)), Done()],
    )
    assert asked[1] == VerifyHead()
    assert asked[2] == ReadCi(HEAD, None)
    assert isinstance(asked[3], PostComment)
    end = step.action
    assert isinstance(end, SavedAt)
    assert end.stage is Stage.ACCEPT
    assert end.state.verified_sha == HEAD
    assert end.state.ci_wait is None


def test_pending_ci_is_a_hold_saved_at_checks() -> None:
    """CHK-15: pending checks save ci_wait and end the job at checks."""
    step = checks.start(inputs(head_sha=HEAD), STATE)
    step, _ = run_through(
        step, checks.transition, [Checked(True), GREEN, CiRead(gate(Verdict.PENDING))]
    )
    end = step.action
    assert isinstance(end, SavedAt)
    assert end.stage is Stage.CHECKS
    assert end.state.ci_wait == CiWait(sha=HEAD, since=NOW, last_read=NOW)


def test_a_job_after_a_ci_wait_reads_ci_without_verifying_again() -> None:
    """CHK-15: the waiting head was verified; the next job only reads the gate."""
    waiting = STATE.model_copy(
        update={"verified_sha": HEAD, "ci_wait": CiWait(sha=HEAD, since=NOW)}
    )
    step = checks.start(inputs(head_sha=HEAD), waiting)
    step = checks.transition(step.memory, Checked(True))
    assert step.action == ReadCi(HEAD, waiting.ci_wait)


def test_a_head_verified_before_goes_straight_to_the_ci_gate() -> None:
    """CHK-14: back at checks with nothing moved (head == verified_sha), verify is not rerun."""
    unchanged = STATE.model_copy(update={"verified_sha": HEAD})
    step = checks.start(inputs(head_sha=HEAD), unchanged)
    step, asked = run_through(
        step, checks.transition, [Checked(True), CiRead(gate(Verdict.PASSED)), Done()]
    )
    assert VerifyHead() not in asked
    assert isinstance(step.action, SavedAt)
    assert step.action.stage is Stage.ACCEPT
    moved = STATE.model_copy(update={"verified_sha": NEW})
    step = checks.transition(checks.start(inputs(head_sha=HEAD), moved).memory, Checked(True))
    assert step.action == VerifyHead()


def test_an_ungated_read_is_reported_as_ungated_not_passed() -> None:
    """No CI at all: the issue goes on, and the comment says ungated."""
    step = checks.start(inputs(head_sha=HEAD), STATE)
    step, _ = run_through(
        step, checks.transition, [Checked(True), GREEN, CiRead(gate(Verdict.UNGATED))]
    )
    assert isinstance(step.action, PostComment)
    assert "ungated" in step.action.text
    assert "passed" not in step.action.text.split("CI:")[1]


def test_ci_timing_out_stops_no_ci() -> None:
    """After ci_timeout_minutes the issue stops no-ci."""
    step = checks.start(inputs(head_sha=HEAD), STATE)
    step, _ = run_through(
        step, checks.transition, [Checked(True), GREEN, CiRead(gate(Verdict.TIMED_OUT))]
    )
    assert isinstance(step.action, Stopped)
    assert step.action.code is StopCode.NO_CI


def test_a_check_failing_on_the_base_too_stops_checks_unrelated() -> None:
    """A failing check that also fails on the base's head is not this branch's to fix."""
    read = CiRead(gate(Verdict.FAILED, ("ci",)), unrelated=("ci",))
    step = checks.start(inputs(head_sha=HEAD), STATE)
    step, _ = run_through(step, checks.transition, [Checked(True), GREEN, read])
    assert isinstance(step.action, Stopped)
    assert step.action.code is StopCode.CHECKS_UNRELATED


def test_red_verify_gets_a_check_fixer_whose_fix_goes_to_review_by_two_lenses() -> None:
    """CHK-7: a writer fixes, pushes, and correctness and scope review the fix."""
    step = checks.start(inputs(head_sha=HEAD), STATE)
    step, _ = run_through(step, checks.transition, [Checked(True), RED])
    assert step.action == ChargeBudget(Role.CHECK_FIX)
    step = checks.transition(step.memory, Charged(step.memory.state))
    launch = step.action
    assert isinstance(launch, LaunchSession)
    assert launch.role is SessionRole.WRITER
    assert "test: failed" in launch.task
    step = checks.transition(step.memory, replied(check_fix_reply()))
    assert step.action == PushBranch(HEAD)
    end = checks.transition(step.memory, Pushed(NEW, ("a.py",), ("a.py",))).action
    assert isinstance(end, SavedAt)
    assert end.stage is Stage.REVIEW
    assert end.state.rereview is not None
    assert end.state.rereview.lenses == ("correctness", "scope")
    assert end.state.rereview.base_sha == HEAD
    assert end.state.rounds.check_fix == 1
    assert end.state.head_sha == NEW


def test_red_checks_after_max_check_fixes_stop_check_fixes() -> None:
    """CHK-7: two fixes used, red again: stop."""
    used = STATE.model_copy(update={"rounds": Rounds(check_fix=2)})
    step = checks.start(inputs(head_sha=HEAD), used)
    step, _ = run_through(step, checks.transition, [Checked(True), RED])
    assert isinstance(step.action, Stopped)
    assert step.action.code is StopCode.CHECK_FIXES


def test_a_fixer_that_cannot_fix_or_changes_nothing_stops_check_fixes() -> None:
    """cannot-fix and an empty push both stop with the check-fixes control."""
    for answers in (
        [replied(check_fix_reply("cannot-fix"))],
        [replied(check_fix_reply()), Pushed(HEAD, (), ())],
    ):
        step = checks.start(inputs(head_sha=HEAD), STATE)
        step, _ = run_through(step, checks.transition, [Checked(True), RED])
        step, _ = run_through(step, checks.transition, [Charged(step.memory.state), *answers])
        assert isinstance(step.action, Stopped)
        assert step.action.code is StopCode.CHECK_FIXES


def test_red_checks_that_are_only_the_judges_stop_checks_config_showing_them() -> None:
    """Issue 45: out of fixes, every failure a config change or a suppression a person may
    accept: the stop of its own, with what it shows kept for the person's lift."""
    held = Verified(
        False,
        HEAD,
        "verify: failed",
        ("suppressions: failed: 1 new, no rule allows: a.py:1: `noqa`",),
        held=("k1",),
        facts="## What this change does to the checks",
    )
    used = STATE.model_copy(update={"rounds": Rounds(check_fix=2)})
    step = checks.start(inputs(head_sha=HEAD), used)
    step, _ = run_through(step, checks.transition, [Checked(True), held])
    assert isinstance(step.action, Stopped)
    assert step.action.code is StopCode.CHECKS_CONFIG
    assert step.action.state.checks_shown == ("k1",)
    assert "What this change does to the checks" in step.action.details
    assert "`noqa`" in step.action.details


def test_restarting_after_checks_config_accepts_exactly_what_the_stop_showed() -> None:
    """The person took the label off: the shown keys join the accepted ones."""
    stopped = Stopped_(control=StopCode.CHECKS_CONFIG, reason="x", stage=Stage.CHECKS, at=NOW)
    state = STATE.model_copy(
        update={"stopped": stopped, "checks_shown": ("k2",), "checks_accepted": ("k1",)}
    )
    again = restart(state)
    assert again.checks_accepted == ("k1", "k2")
    assert again.checks_shown == ()
    other = restart(
        state.model_copy(
            update={"stopped": stopped.model_copy(update={"control": StopCode.CHECK_FIXES})}
        )
    )
    assert other.checks_accepted == ("k1",)


def test_a_rate_limited_fixer_releases_and_an_unpayable_one_stops_budget() -> None:
    """Rate limit: released at checks; the pool refusing: budget."""
    step = checks.start(inputs(head_sha=HEAD), STATE)
    step, _ = run_through(step, checks.transition, [Checked(True), RED])
    assert isinstance(checks.transition(step.memory, Refused("over")).action, Stopped)
    step = checks.transition(step.memory, Charged(step.memory.state))
    ended = SessionEnded(SessionStatus.RATE_LIMITED, None, "limit")
    assert isinstance(checks.transition(step.memory, ended).action, Released)
    broken = checks.transition(step.memory, failed()).action
    assert isinstance(broken, Stopped)
    assert broken.code is StopCode.ERROR
