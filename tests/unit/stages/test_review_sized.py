"""Conveyor's own first review, sized (`[review] sized_first_review`), and a model per lens
(`angle_models`, REV-3); unconfigured, the three-lens review is as it was."""

from __future__ import annotations

from typing import Any

from conveyor.core.config import ReviewSettings
from conveyor.core.review_replies import AngleReply, BriefReply
from conveyor.core.state import IssueState, Stage
from conveyor.core.stops import StopCode
from conveyor.stages import review
from conveyor.stages.effects import LaunchSession
from conveyor.stages.effects_review import PostPrComment
from conveyor.stages.step import SavedAt, Stopped
from tests.unit.stages.factory import failed, inputs
from tests.unit.stages.factory_review import HEAD, by_kind, review_reply, run_to_end

STATE = IssueState(stage=Stage.REVIEW, pr=12, head_sha=HEAD, spec="## Behaviour\n- totals")
SIZED = ReviewSettings(sized_first_review=True, angle_models={"tests": "opus"})


def brief(size: str = "s") -> BriefReply:
    """The distiller's reply."""
    data = {"brief": "Adds total().", "size": size, "risky_paths": [], "summary": ""}
    return BriefReply.model_validate(data)


def looked(angle: str, *found: dict[str, Any]) -> AngleReply:
    """An angle's reply."""
    return AngleReply.model_validate({"angle": angle, "findings": list(found), "summary": "ok"})


def found(claim: str, severity: str = "major", line: int = 3) -> dict[str, Any]:
    """A finding on app.py."""
    return {"severity": severity, "file": "app.py", "line": line, "end_line": None,
            "claim": claim, "evidence": "seen", "suggestion": "fix"}  # fmt: skip


def launches(asked: list[object]) -> list[LaunchSession]:
    """The sessions a run launched."""
    return [a for a in asked if isinstance(a, LaunchSession)]


def test_a_sized_first_review_briefs_then_runs_the_angles_of_its_size() -> None:
    """Size s: the distiller, then correctness and tests; the tests angle on its own model."""
    answers = by_kind(brief=brief(), angle_correctness=looked("correctness"),
                      angle_tests=looked("tests"))  # fmt: skip
    end, asked = run_to_end(review.start(inputs(review=SIZED), STATE), review.transition, answers)
    assert [(s.kind, s.model) for s in launches(asked)] == [
        ("brief", None), ("angle-correctness", None), ("angle-tests", "opus"),
    ]  # fmt: skip
    assert isinstance(end, SavedAt)
    assert end.stage is Stage.CHECKS


def test_the_judge_merges_the_angles_findings_into_the_issues_findings() -> None:
    """Two angles say the same thing: one blocking finding; a minor one is a nit."""
    answers = by_kind(
        brief=brief(),
        angle_correctness=looked("correctness", found("total() is off by one for empty")),
        angle_tests=looked("tests", found("total() off by one for empty"),
                           found("name is unclear", "minor", 9)),
    )  # fmt: skip
    end, asked = run_to_end(review.start(inputs(review=SIZED), STATE), review.transition, answers)
    assert isinstance(end, SavedAt)
    assert end.stage is Stage.FIX
    assert [(f.id, f.lens, f.line) for f in end.state.findings] == [("F1", "correctness", 3)]
    kinds = [p.kind for p in asked if isinstance(p, PostPrComment)]
    assert kinds == ["angle-correctness", "angle-tests", "findings", "nits"]
    assert not any(s.kind == "aggregate" for s in launches(asked))


def test_a_failing_angle_is_named_and_the_rest_judged_but_no_brief_fails_the_review() -> None:
    """BB-REV-5: a failed angle posts that it could not run; a failed distiller stops."""
    answers = by_kind(brief=brief(), angle_correctness=failed(), angle_tests=looked("tests"))
    end, asked = run_to_end(review.start(inputs(review=SIZED), STATE), review.transition, answers)
    assert isinstance(end, SavedAt)
    texts = [p.text for p in asked if isinstance(p, PostPrComment)]
    assert any("could not run" in t for t in texts)
    no_brief = by_kind(brief=failed())
    end, _ = run_to_end(review.start(inputs(review=SIZED), STATE), review.transition, no_brief)
    assert isinstance(end, Stopped)
    assert end.code is StopCode.ERROR


def test_unconfigured_the_three_lenses_run_as_before_each_on_its_configured_model() -> None:
    """No sized review: review-correctness, -tests, -scope; a lens model only where given."""
    settings = ReviewSettings(angle_models={"scope": "sonnet"})
    lenses = ("correctness", "tests", "scope")
    clean = by_kind(**{f"review_{lens}": review_reply(lens) for lens in lenses})
    _, asked = run_to_end(review.start(inputs(review=settings), STATE), review.transition, clean)
    assert [(s.kind, s.model) for s in launches(asked)] == [
        ("review-correctness", None), ("review-tests", None), ("review-scope", "sonnet"),
    ]  # fmt: skip
    _, plain = run_to_end(review.start(inputs(), STATE), review.transition, clean)
    assert [s.model for s in launches(plain)] == [None, None, None]
