"""The acceptance and security machines: a fresh reader each, findings into the fix loop."""

from __future__ import annotations

from conveyor.core.config import Role
from conveyor.core.replies import AcceptReply, SecurityReply
from conveyor.core.session import SessionRole, SessionStatus
from conveyor.core.state import IssueState, Rounds, Stage
from conveyor.core.stops import StopCode
from conveyor.stages import accept, security
from conveyor.stages.effects import LaunchSession, SessionEnded
from conveyor.stages.effects_review import PostPrComment, PrepareReview
from conveyor.stages.step import Released, SavedAt, Stopped
from tests.unit.stages.factory import failed, inputs
from tests.unit.stages.factory_review import HEAD, by_kind, run_to_end

STATE = IssueState(stage=Stage.ACCEPT, pr=12, head_sha=HEAD, spec="## Behaviour\n- totals add up")


def verdict(kind: str = "pass") -> AcceptReply:
    """An acceptance verdict."""
    return AcceptReply.model_validate(
        {
            "verdict": kind,
            "reason": "totals are right" if kind == "pass" else "the empty case is missing",
            "missing": [] if kind == "pass" else ["totals add up"],
            "no_tests_reason_holds": None,
            "summary": "",
        }
    )


def harm(category: str | None = None) -> SecurityReply:
    """A security review: clean, or one finding of `category`."""
    found = [
        {"category": category, "file": "pay.py", "line": 4, "evidence": "e", "suggestion": "s"}
    ]
    return SecurityReply.model_validate({"findings": found if category else [], "summary": "read"})


def test_acceptance_is_a_fresh_reader_given_the_issue_the_spec_and_the_whole_diff() -> None:
    """ACC-1, ACC-5: a reader, the accept budget, no practices."""
    end, asked = run_to_end(
        accept.start(inputs(), STATE), accept.transition, by_kind(accept=verdict())
    )
    assert PrepareReview("accept.diff") in asked
    (launch,) = [a for a in asked if isinstance(a, LaunchSession)]
    assert (launch.role, launch.budget_role) == (SessionRole.READER, Role.ACCEPT)
    assert "totals add up" in launch.task
    assert "/job/review/accept.diff" in launch.task
    assert "AGENTS.md" not in launch.task
    assert isinstance(end, SavedAt)
    assert end.stage is Stage.SECURITY


def test_a_failed_acceptance_posts_its_verdict_and_goes_to_fix_as_a_blocking_finding() -> None:
    """ACC-3, FIX-11."""
    end, asked = run_to_end(
        accept.start(inputs(), STATE), accept.transition, by_kind(accept=verdict("fail"))
    )
    (post,) = [a for a in asked if isinstance(a, PostPrComment)]
    assert "failed" in post.text
    assert "totals add up" in post.text
    assert isinstance(end, SavedAt)
    assert end.stage is Stage.FIX
    assert [(f.lens, f.severity) for f in end.state.open_blocking()] == [("acceptance", "blocking")]


def test_a_failed_acceptance_with_the_rounds_used_stops_acceptance() -> None:
    """ACC-4."""
    used = STATE.model_copy(update={"rounds": Rounds(fix=2)})
    end, _ = run_to_end(
        accept.start(inputs(), used), accept.transition, by_kind(accept=verdict("fail"))
    )
    assert isinstance(end, Stopped)
    assert end.code is StopCode.ACCEPTANCE
    assert StopCode.ACCEPTANCE.label == "agent:stopped-acceptance"


def test_a_failing_verifier_is_retried_once_and_a_rate_limit_releases() -> None:
    """Readers get one more launch; a rate limit keeps the stage."""
    end, asked = run_to_end(
        accept.start(inputs(), STATE), accept.transition, by_kind(accept=failed())
    )
    assert isinstance(end, Stopped)
    assert end.code is StopCode.ERROR
    assert len([a for a in asked if isinstance(a, LaunchSession)]) == 2
    limited = by_kind(security=SessionEnded(SessionStatus.RATE_LIMITED))
    assert isinstance(
        run_to_end(security.start(inputs(), STATE), security.transition, limited)[0], Released
    )


def test_a_clean_security_review_hands_the_head_to_merge_as_passed() -> None:
    """SEC-1: the last round; L's merger reads passed_sha."""
    end, asked = run_to_end(
        security.start(inputs(), STATE), security.transition, by_kind(security=harm())
    )
    (launch,) = [a for a in asked if isinstance(a, LaunchSession)]
    assert (launch.role, launch.budget_role) == (SessionRole.READER, Role.SECURITY)
    assert "AGENTS.md" not in launch.task
    assert isinstance(end, SavedAt)
    assert end.stage is Stage.MERGE
    assert end.state.passed_sha == HEAD


def test_a_security_finding_goes_to_fix_with_fresh_rounds_and_its_category() -> None:
    """SEC-3: round counts start fresh; the security lens will re-review."""
    worn = STATE.model_copy(update={"rounds": Rounds(fix=2)})
    end, asked = run_to_end(
        security.start(inputs(), worn),
        security.transition,
        by_kind(security=harm("financial-harm")),
    )
    (post,) = [a for a in asked if isinstance(a, PostPrComment)]
    assert "financial-harm" in post.text
    assert isinstance(end, SavedAt)
    assert end.stage is Stage.FIX
    assert (end.state.rounds.fix, end.state.rounds.security) == (0, 1)
    assert [(f.lens, f.category) for f in end.state.open_blocking()] == [
        ("security", "financial-harm")
    ]


def test_a_security_finding_found_again_after_the_rounds_stops_with_its_category_label() -> None:
    """SEC-4: agent:stopped-<category>."""
    seen = STATE.model_copy(update={"rounds": Rounds(security=2)})
    end, _ = run_to_end(
        security.start(inputs(), seen), security.transition, by_kind(security=harm("user-harm"))
    )
    assert isinstance(end, Stopped)
    assert end.code is StopCode.USER_HARM
    assert end.code.label == "agent:stopped-user-harm"


def test_a_finding_during_a_merge_recheck_ends_the_recheck() -> None:
    """BUD-5, SEC-7: the fix is new code, paid from the issue's pool again."""
    rechecking = STATE.model_copy(update={"merge_rebase": True})
    for start, transition, answers in (
        (accept.start, accept.transition, by_kind(accept=verdict("fail"))),
        (security.start, security.transition, by_kind(security=harm("user-harm"))),
    ):
        end, _ = run_to_end(start(inputs(), rechecking), transition, answers)
        assert isinstance(end, SavedAt)
        assert end.stage is Stage.FIX
        assert not end.state.merge_rebase
