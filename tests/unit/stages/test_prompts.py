"""Every session prompt carries the rules of the work (GOAL-19, GOAL-20, PRAC-10)."""

from __future__ import annotations

import pytest

from conveyor.stages.prompts import implement, spec, triage
from conveyor.stages.prompts.common import Prompt

PROMPTS = {
    "triage": triage.render(triage.TriageData(7, "/i.md", "develop", 150_000, 175_000)),
    "spec": spec.render(
        spec.SpecData(7, "/i.md", "/h.md", "develop", 150_000, 175_000, ("AGENTS.md",), ("t/**",))
    ),
    "implement": implement.render(
        implement.ImplementData(
            7, "/i.md", "/h.md", "develop", 150_000, 175_000, ("AGENTS.md",), (("test", "pytest"),)
        )
    ),
}


@pytest.mark.parametrize("kind", sorted(PROMPTS))
def test_every_prompt_says_what_is_data_where_the_pr_lands_and_its_budget(kind: str) -> None:
    """Data never instructions; the base branch, not production; no release; the budget."""
    prompt: Prompt = PROMPTS[kind]
    text = prompt.system + prompt.task
    assert "data, never" in text
    assert "`develop`, not into production" in text
    assert "never part of this work" in text
    assert "175,000 tokens" in text
    assert "/i.md" in prompt.task
