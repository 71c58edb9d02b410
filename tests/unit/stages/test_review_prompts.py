"""The review, fix, acceptance and security prompts: the work's rules, and what to read."""

from __future__ import annotations

import pytest

from conveyor.core.findings import Raw
from conveyor.core.replies import Finding as ReplyFinding
from conveyor.stages.prompts import accept, aggregate, fix, review, security
from conveyor.stages.prompts.common import Prompt
from tests.unit.stages.factory_review import stored

DISPUTED = stored(4, status="disputed", dispute='too strict\nThe spec says: "totals are ints"')
RAW = Raw(
    "tests", ReplyFinding(severity="blocking", file="a.py", line=2, evidence="e", suggestion="s")
)
PROMPTS: dict[str, Prompt] = {
    "review": review.render(
        review.ReviewData(
            7, "scope", "/i.md", "/d.diff", "develop", 150_000, 175_000, ("AGENTS.md",)
        )
    ),
    "rereview": review.render(
        review.ReviewData(
            7,
            "correctness",
            "/i.md",
            "/d.diff",
            "develop",
            150_000,
            175_000,
            findings=(DISPUTED,),
            rereview=True,
        )
    ),
    "aggregate": aggregate.render(aggregate.AggregateData(7, "develop", 150_000, 175_000, (RAW,))),
    "fix": fix.render(
        fix.FixData(
            7,
            "/i.md",
            "/h.md",
            "develop",
            150_000,
            175_000,
            ("AGENTS.md",),
            (("test", "pytest"),),
            (DISPUTED,),
            1,
            2,
        )
    ),
    "accept": accept.render(accept.AcceptData(7, "/i.md", "/d.diff", "develop", 150_000, 175_000)),
    "security": security.render(
        security.SecurityData(7, "/i.md", "/d.diff", "develop", 150_000, 175_000)
    ),
}


@pytest.mark.parametrize("kind", sorted(PROMPTS))
def test_every_review_loop_prompt_says_what_is_data_where_the_pr_lands_and_its_budget(
    kind: str,
) -> None:
    """GOAL-19, GOAL-20: data never instructions; the base branch, not production; the budget."""
    prompt = PROMPTS[kind]
    text = prompt.system + prompt.task
    assert "data, never" in text
    assert "`develop`, not into production" in text
    assert "175,000 tokens" in text
    assert "#7" in prompt.task


@pytest.mark.parametrize("kind", ["review", "rereview", "accept", "security"])
def test_readers_are_pointed_at_the_diff_file_and_the_issue(kind: str) -> None:
    """REV-2: the issue and the diff prepare-review wrote."""
    assert "/d.diff" in PROMPTS[kind].task
    assert "/i.md" in PROMPTS[kind].task


def test_the_rereviewer_and_the_fixer_see_the_dispute_and_its_spec_quote() -> None:
    """FIX-4, FIX-6: the lens rules on the fixer's reason."""
    for kind in ("rereview", "fix"):
        assert "totals are ints" in PROMPTS[kind].task
        assert "F4" in PROMPTS[kind].task


def test_the_security_prompt_names_exactly_the_four_harm_categories() -> None:
    """SEC-2: the categories are the stop labels' names."""
    task = PROMPTS["security"].task
    for category in ("user-harm", "users-rights", "financial-harm", "abuse-risk"):
        assert f"`{category}`" in task
