"""A first review's later lenses come alongside its first lens's launch (REV-1: three
independent readers of one diff), each the very session the machine asks for next."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from conveyor.core.state import IssueState, Rereview, Stage
from conveyor.job.alongside import key_of
from conveyor.stages import review
from conveyor.stages.effects import LaunchSession, Result
from tests.unit.stages.factory import failed, inputs
from tests.unit.stages.factory_review import HEAD, by_kind, rereview_reply, review_reply, run_to_end

STATE = IssueState(stage=Stage.REVIEW, pr=12, head_sha=HEAD, spec="## Behaviour\n- totals")
CLEAN = {f"review_{lens}": review_reply(lens) for lens in ("correctness", "tests", "scope")}


def launches(asked: list[object]) -> list[LaunchSession]:
    """The sessions a run asked for, in order."""
    return [a for a in asked if isinstance(a, LaunchSession)]


def test_the_first_lens_brings_the_later_lenses_alongside_as_the_machine_asks_for_them() -> None:
    """The later lenses' launches are the same sessions (kind, prompts, budget, attempt) the
    machine asks for after the first lens's reply, so the job can answer them from what the
    sessions it started ahead ended with; the later launches bring none themselves."""
    _, asked = run_to_end(review.start(inputs(), STATE), review.transition, by_kind(**CLEAN))
    first, *later = launches(asked)
    assert [a.kind for a in first.alongside] == ["review-tests", "review-scope"]
    assert [replace(a, alongside=()) for a in later] == list(first.alongside)
    assert all(a.alongside == () for a in later)


def test_a_retried_first_lens_brings_none_and_its_later_lenses_still_match() -> None:
    """A first lens launched again is alone; the later lenses, though counted one attempt
    further, are still the sessions started ahead (the job matches them by all but attempt)."""
    tries: Iterator[Result | None] = iter([failed(), None])

    def session(launch: LaunchSession) -> Result:
        if launch.kind == "review-correctness":
            outcome = next(tries)
            if outcome is not None:
                return outcome
        return by_kind(**CLEAN)(launch)

    _, asked = run_to_end(review.start(inputs(), STATE), review.transition, session)
    first, again, *later = launches(asked)
    assert again.kind == "review-correctness"
    assert again.alongside == ()
    assert [key_of(a) for a in later] == [key_of(a) for a in first.alongside]


def test_a_rereview_launches_each_lens_alone() -> None:
    """A fix's re-review asks each named lens in turn (its findings' lenses only)."""
    fixing = STATE.model_copy(
        update={"rereview": Rereview(base_sha=HEAD, lenses=("correctness", "tests"))}
    )
    answers = {"rereview_correctness": rereview_reply(), "rereview_tests": rereview_reply()}
    _, asked = run_to_end(review.start(inputs(), fixing), review.transition, by_kind(**answers))
    assert [a.alongside for a in launches(asked)] == [(), ()]
