"""The review machine: three lenses, the aggregator, nits, re-reviews and their stops."""

from __future__ import annotations

from conveyor.core.config import Limits, Role
from conveyor.core.replies import AggregateReply
from conveyor.core.session import SessionRole, SessionStatus
from conveyor.core.state import Charge, IssueState, Pool, Rereview, Rounds, Stage
from conveyor.core.stops import StopCode
from conveyor.stages import review
from conveyor.stages.effects import (
    ChargeBudget,
    Charged,
    LaunchSession,
    Refused,
    Result,
    SessionEnded,
)
from conveyor.stages.effects_review import PostPrComment, PrepareReview, ReviewPrepared
from conveyor.stages.step import Released, SavedAt, Stopped
from tests.unit.stages.factory import failed, inputs
from tests.unit.stages.factory_review import (
    FIXED,
    HEAD,
    answer,
    by_kind,
    issue_finding,
    rereview_reply,
    review_reply,
    run_to_end,
    stored,
)

STATE = IssueState(stage=Stage.REVIEW, pr=12, head_sha=HEAD, spec="## Behaviour\n- totals")
CLEAN = {
    "review_correctness": review_reply("correctness"),
    "review_tests": review_reply("tests"),
    "review_scope": review_reply("scope"),
}


def posts(asked: list[object]) -> list[PostPrComment]:
    """The PR comments a run asked for."""
    return [a for a in asked if isinstance(a, PostPrComment)]


def test_a_clean_review_runs_three_reader_lenses_each_posting_its_comment_then_goes_to_checks() -> (
    None
):
    """REV-1, REV-9, REV-15: three fresh readers, one PR comment each, reviewed_sha recorded."""
    end, asked = run_to_end(review.start(inputs(), STATE), review.transition, by_kind(**CLEAN))
    launches = [a for a in asked if isinstance(a, LaunchSession)]
    assert [launch.kind for launch in launches] == [
        "review-correctness",
        "review-tests",
        "review-scope",
    ]
    assert all(launch.role is SessionRole.READER for launch in launches)
    assert all(launch.budget_role is Role.REVIEW for launch in launches)
    assert [p.kind for p in posts(asked)] == ["review-correctness", "review-tests", "review-scope"]
    assert isinstance(end, SavedAt)
    assert end.stage is Stage.CHECKS
    assert end.state.reviewed_sha == HEAD


def test_every_lens_is_charged_its_budget_before_it_launches() -> None:
    """BUD-1: a charge precedes every launch."""
    _, asked = run_to_end(review.start(inputs(), STATE), review.transition, by_kind(**CLEAN))
    kinds = [type(a).__name__ for a in asked if isinstance(a, ChargeBudget | LaunchSession)]
    assert kinds == ["ChargeBudget", "LaunchSession"] * 3


def test_each_lens_sessions_usage_is_recorded_beside_its_charge() -> None:
    """BUD-9: the tokens each lens reported go beside that lens's launch charge."""
    used = {"correctness": 111, "tests": 222, "scope": 333}
    answers = {
        f"review_{lens}": SessionEnded(SessionStatus.REPLIED, review_reply(lens), None, n)
        for lens, n in used.items()
    }
    session = by_kind(**answers)
    step = review.start(inputs(), STATE)
    while not isinstance(step.action, SavedAt):
        action, state = step.action, step.memory.state
        if isinstance(action, ChargeBudget):
            charge = Charge(role=action.role.value, pool=Pool.ISSUE, tokens=1000)
            result: Result = Charged(state.model_copy(update={"charges": (*state.charges, charge)}))
        else:
            result = (
                session(action)
                if isinstance(action, LaunchSession)
                else answer(action, state, session)
            )
        step = review.transition(step.memory, result)
    assert [c.used for c in step.action.state.charges] == [111, 222, 333]


def test_lenses_read_the_issue_the_spec_the_diff_and_the_practices() -> None:
    """REV-2, REV-7."""
    step = review.start(inputs(), STATE)
    assert step.action == PrepareReview("review.diff", None)
    step = review.transition(step.memory, ReviewPrepared("/job/review/review.diff", HEAD, False))
    step = review.transition(step.memory, Charged(step.memory.state))
    assert isinstance(step.action, LaunchSession)
    task = step.action.task
    assert "/job/review/review.diff" in task
    assert "/runs/issue-7/issue.md" in task
    assert "totals" in task
    assert "AGENTS.md" in task


def test_an_empty_diff_stops_the_issue_with_nothing_to_review() -> None:
    """REV-13."""
    step = review.start(inputs(), STATE)
    end = review.transition(step.memory, ReviewPrepared("/d", HEAD, empty=True)).action
    assert isinstance(end, Stopped)
    assert end.code is StopCode.NO_WORK


def test_blocking_findings_are_aggregated_numbered_posted_and_sent_to_fix_with_nits_apart() -> None:
    """REV-5, REV-6: duplicates merged by the aggregator; nits in one comment, not acted on."""
    dup = issue_finding("off by one")
    answers = {
        "review_correctness": review_reply("correctness", dup),
        "review_tests": review_reply("tests", dup, issue_finding("naming", "nit")),
        "review_scope": review_reply("scope"),
        "aggregate": {
            "findings": [{"id": 1, "lenses": ["correctness", "tests"], **dup}],
            "summary": "one problem",
        },
    }
    answers["aggregate"] = AggregateReply.model_validate(answers["aggregate"])
    end, asked = run_to_end(review.start(inputs(), STATE), review.transition, by_kind(**answers))
    assert isinstance(end, SavedAt)
    assert end.stage is Stage.FIX
    assert [(f.id, f.lens) for f in end.state.findings] == [("F1", "correctness")]
    kinds = [p.kind for p in posts(asked)]
    assert kinds[-2:] == ["findings", "nits"]
    assert "naming" in posts(asked)[-1].text
    assert any(a == ChargeBudget(Role.AGGREGATE) for a in asked)


def test_a_failed_aggregator_leaves_the_raw_blocking_findings_numbered_anyway() -> None:
    """REV-5: the fallback numbers the raw findings itself."""
    answers = {
        "review_correctness": review_reply("correctness", issue_finding("a")),
        "review_tests": review_reply("tests", issue_finding("b", line=9)),
        "review_scope": review_reply("scope"),
        "aggregate": failed(),
    }
    end, _ = run_to_end(review.start(inputs(), STATE), review.transition, by_kind(**answers))
    assert isinstance(end, SavedAt)
    assert [(f.id, f.evidence) for f in end.state.findings] == [("F1", "a"), ("F2", "b")]


def test_a_single_blocking_finding_needs_no_aggregator() -> None:
    """Nothing to merge: it is numbered directly."""
    answers = {**CLEAN, "review_scope": review_reply("scope", issue_finding("planted"))}
    end, asked = run_to_end(review.start(inputs(), STATE), review.transition, by_kind(**answers))
    assert isinstance(end, SavedAt)
    assert [(f.id, f.lens) for f in end.state.findings] == [("F1", "scope")]
    assert not any(isinstance(a, LaunchSession) and a.kind == "aggregate" for a in asked)


def test_a_lens_that_fails_twice_stops_with_error_and_once_is_retried() -> None:
    """A failed reader is launched again once."""
    answers = {**CLEAN, "review_tests": failed()}
    end, asked = run_to_end(review.start(inputs(), STATE), review.transition, by_kind(**answers))
    assert isinstance(end, Stopped)
    assert end.code is StopCode.ERROR
    assert [a.kind for a in asked if isinstance(a, LaunchSession)].count("review-tests") == 2


def test_a_rate_limited_lens_releases_and_a_refused_charge_stops_budget() -> None:
    """Deferred work keeps its stage; an unpayable session stops."""
    limited = {**CLEAN, "review_correctness": SessionEnded(SessionStatus.RATE_LIMITED)}
    end, _ = run_to_end(review.start(inputs(), STATE), review.transition, by_kind(**limited))
    assert isinstance(end, Released)
    step = review.start(inputs(), STATE)
    step = review.transition(step.memory, ReviewPrepared("/d", HEAD, False))
    end2 = review.transition(step.memory, Refused("over")).action
    assert isinstance(end2, Stopped)
    assert end2.code is StopCode.BUDGET


FIXING = STATE.model_copy(
    update={
        "findings": (stored(1), stored(2, "tests")),
        "rounds": Rounds(fix=1),
        "rereview": Rereview(base_sha=HEAD, lenses=("correctness", "tests")),
        "head_sha": FIXED,
    }
)


def test_a_rereview_runs_only_the_named_lenses_as_readers_on_the_fix_diff() -> None:
    """FIX-2, FIX-3: the fix diff base_sha..head, the lenses with open findings, no practices."""
    step = review.start(inputs(), FIXING)
    assert step.action == PrepareReview("rereview.diff", HEAD)
    answers = {"rereview_correctness": rereview_reply(), "rereview_tests": rereview_reply()}
    end, asked = run_to_end(step, review.transition, by_kind(**answers))
    launches = [a for a in asked if isinstance(a, LaunchSession)]
    assert [launch.kind for launch in launches] == ["rereview-correctness", "rereview-tests"]
    assert all(launch.budget_role is Role.REREVIEW for launch in launches)
    assert "AGENTS.md" not in launches[0].task
    assert "problem 1" in launches[0].task
    assert "problem 2" not in launches[0].task
    assert isinstance(end, SavedAt)
    assert end.stage is Stage.CHECKS
    assert end.state.rereview is None
    assert {f.status for f in end.state.findings} == {"resolved"}


def test_a_finding_still_open_goes_back_to_fix_while_rounds_remain() -> None:
    """FIX-1: the round count decides."""
    answers = {
        "rereview_correctness": rereview_reply(still_open=[1]),
        "rereview_tests": rereview_reply(),
    }
    end, asked = run_to_end(review.start(inputs(), FIXING), review.transition, by_kind(**answers))
    assert isinstance(end, SavedAt)
    assert end.stage is Stage.FIX
    assert "F1" in next(p for p in posts(asked) if p.kind == "findings").text


def test_a_finding_still_open_after_the_last_round_stops_review_rounds() -> None:
    """FIX-1: max_fix_rounds (2) rounds at most."""
    used = FIXING.model_copy(update={"rounds": Rounds(fix=2)})
    answers = {
        "rereview_correctness": rereview_reply(still_open=[1]),
        "rereview_tests": rereview_reply(),
    }
    end, _ = run_to_end(review.start(inputs(), used), review.transition, by_kind(**answers))
    assert isinstance(end, Stopped)
    assert end.code is StopCode.REVIEW_ROUNDS
    assert "F1" in end.details


def test_a_resolved_finding_that_comes_back_stops_fix_loop() -> None:
    """FIX-7."""
    back = FIXING.model_copy(
        update={"findings": (stored(1, status="resolved"), stored(2, "tests"))}
    )
    answers = {
        "rereview_correctness": rereview_reply(still_open=[1]),
        "rereview_tests": rereview_reply(),
    }
    end, _ = run_to_end(review.start(inputs(), back), review.transition, by_kind(**answers))
    assert isinstance(end, Stopped)
    assert end.code is StopCode.FIX_LOOP


def test_more_rounds_can_be_configured() -> None:
    """The limit comes from the config."""
    used = FIXING.model_copy(update={"rounds": Rounds(fix=2)})
    answers = {
        "rereview_correctness": rereview_reply(still_open=[1]),
        "rereview_tests": rereview_reply(),
    }
    step = review.start(inputs(limits=Limits(max_fix_rounds=3)), used)
    end, _ = run_to_end(step, review.transition, by_kind(**answers))
    assert isinstance(end, SavedAt)
    assert end.stage is Stage.FIX


def test_a_rereviewer_cannot_block_on_a_file_the_fix_did_not_touch() -> None:
    """FIX-2: such a finding is posted as a nit and the review is clean."""
    old = issue_finding("an old problem elsewhere", file="other.py")
    answers = {
        "rereview_correctness": rereview_reply(findings=[old]),
        "rereview_tests": rereview_reply(),
    }
    end, asked = run_to_end(review.start(inputs(), FIXING), review.transition, by_kind(**answers))
    assert isinstance(end, SavedAt)
    assert end.stage is Stage.CHECKS
    assert "an old problem elsewhere" in posts(asked)[-1].text
    assert posts(asked)[-1].kind == "nits"
