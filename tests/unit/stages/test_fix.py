"""The fix machine: a writer round, its disputes, its push and the re-review it asks for."""

from __future__ import annotations

from conveyor.core.config import Role
from conveyor.core.replies import FixReply
from conveyor.core.session import SessionRole, SessionStatus
from conveyor.core.state import IssueState, Rereview, Rounds, Stage
from conveyor.core.stops import StopCode
from conveyor.stages import fix
from conveyor.stages.effects import LaunchSession, PushBranch, ResetBranch, SessionEnded
from conveyor.stages.effects_review import PostPrComment
from conveyor.stages.step import Released, SavedAt, Stopped
from tests.unit.stages.factory import failed, inputs
from tests.unit.stages.factory_review import FIXED, HEAD, by_kind, run_to_end, stored

SPEC = "## Behaviour\n- `total()` of an empty stock is 0.\n"
STATE = IssueState(
    stage=Stage.FIX,
    pr=12,
    head_sha=HEAD,
    reviewed_sha=HEAD,
    spec=SPEC,
    findings=(stored(1), stored(2, "scope"), stored(3, "tests", status="resolved")),
)


def fix_reply(*disputes: dict[str, object], status: str = "done") -> FixReply:
    """A fixer's reply addressing F1 and disputing what it is given."""
    return FixReply.model_validate(
        {
            "status": status,
            "summary": "Fixed the off-by-one.",
            "addressed": [{"finding": 1, "how": "use <="}],
            "disputes": list(disputes),
        }
    )


def test_a_fix_round_is_a_writer_given_the_open_findings_and_the_spec() -> None:
    """FIX-3: the fixer (100k, writer) sees the spec and only the open findings."""
    end, asked = run_to_end(fix.start(inputs(), STATE), fix.transition, by_kind(fix=fix_reply()))
    (launch,) = [a for a in asked if isinstance(a, LaunchSession)]
    assert (launch.role, launch.budget_role) == (SessionRole.WRITER, Role.FIX)
    assert "problem 1" in launch.task
    assert "problem 2" in launch.task
    assert "problem 3" not in launch.task
    assert "empty stock is 0" in launch.task
    assert PushBranch(HEAD) in asked
    assert isinstance(end, SavedAt)


def test_the_fix_saves_at_review_with_the_fix_diff_base_and_the_lenses_to_rerun() -> None:
    """FIX-2: rereview {base_sha, lenses}; the round is counted in the state."""
    end, _ = run_to_end(fix.start(inputs(), STATE), fix.transition, by_kind(fix=fix_reply()))
    assert isinstance(end, SavedAt)
    assert end.stage is Stage.REVIEW
    assert end.state.rereview == Rereview(base_sha=HEAD, lenses=("correctness", "scope"))
    assert (end.state.head_sha, end.state.rounds.fix) == (FIXED, 1)


def test_the_fixer_posts_its_own_pr_comment_with_its_disputes() -> None:
    """FIX-8: each fixer posts its own comment; a dispute's reason is shown."""
    dispute = {"finding": 2, "reason": "the issue asks for it", "spec_quote": None}
    end, asked = run_to_end(
        fix.start(inputs(), STATE), fix.transition, by_kind(fix=fix_reply(dispute))
    )
    (post,) = [a for a in asked if isinstance(a, PostPrComment)]
    assert (post.kind, post.role) == ("fix-1", "fix")
    assert "the issue asks for it" in post.text
    assert isinstance(end, SavedAt)
    assert end.state.findings[1].status == "disputed"


def test_a_second_dispute_of_the_same_finding_is_not_accepted_and_says_so() -> None:
    """FIX-4: once only."""
    once = STATE.model_copy(update={"findings": (stored(1, disputes=1),), "rounds": Rounds(fix=1)})
    dispute = {"finding": 1, "reason": "still wrong", "spec_quote": None}
    end, asked = run_to_end(
        fix.start(inputs(), once), fix.transition, by_kind(fix=fix_reply(dispute))
    )
    (post,) = [a for a in asked if isinstance(a, PostPrComment)]
    assert "already disputed" in post.text
    assert isinstance(end, SavedAt)
    assert end.state.findings[0].status == "open"


def test_disputing_an_acceptance_finding_stops_acceptance_before_anything_is_pushed() -> None:
    """FIX-5: the branch is put back to the reviewed head; no push is asked for."""
    state = STATE.model_copy(update={"findings": (stored(1, "acceptance"),)})
    dispute = {"finding": 1, "reason": "the issue never asked", "spec_quote": None}
    end, asked = run_to_end(
        fix.start(inputs(), state), fix.transition, by_kind(fix=fix_reply(dispute))
    )
    assert not any(isinstance(a, PushBranch) for a in asked)
    assert ResetBranch(HEAD) in asked
    assert isinstance(end, Stopped)
    assert end.code is StopCode.ACCEPTANCE


def test_nothing_open_goes_on_to_checks_and_no_rounds_left_stops() -> None:
    """FIX-13, FIX-1."""
    clean = STATE.model_copy(update={"findings": ()})
    assert isinstance(fix.start(inputs(), clean).action, SavedAt)
    used = STATE.model_copy(update={"rounds": Rounds(fix=2)})
    end = fix.start(inputs(), used).action
    assert isinstance(end, Stopped)
    assert end.code is StopCode.REVIEW_ROUNDS


def test_a_handoff_continues_once_then_stops_too_large() -> None:
    """A continuation is not another fix round."""
    answers = by_kind(fix=fix_reply(status="handoff"))
    end, asked = run_to_end(fix.start(inputs(), STATE), fix.transition, answers)
    launches = [a for a in asked if isinstance(a, LaunchSession)]
    assert [launch.continuation for launch in launches] == [0, 1]
    assert isinstance(end, Stopped)
    assert end.code is StopCode.TOO_LARGE
    assert end.state.rounds.fix == 0


def test_a_failed_fixer_is_retried_once_and_a_rate_limited_one_releases() -> None:
    """Failures stop with error after two attempts; a rate limit keeps the stage."""
    end, asked = run_to_end(fix.start(inputs(), STATE), fix.transition, by_kind(fix=failed()))
    assert isinstance(end, Stopped)
    assert end.code is StopCode.ERROR
    assert len([a for a in asked if isinstance(a, LaunchSession)]) == 2
    limited = by_kind(fix=SessionEnded(SessionStatus.RATE_LIMITED))
    assert isinstance(run_to_end(fix.start(inputs(), STATE), fix.transition, limited)[0], Released)
