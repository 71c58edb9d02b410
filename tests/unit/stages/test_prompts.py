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


@pytest.mark.parametrize("kind", sorted(PROMPTS))
def test_no_prompt_offers_the_web_which_no_session_can_reach(kind: str) -> None:
    """SPEC-4/5 are not built: no session has a web tool and its box reaches only the model's
    API, so no prompt may send it to the web (the spec's once did)."""
    prompt: Prompt = PROMPTS[kind]
    text = (prompt.system + prompt.task).casefold()
    assert "last resort" not in text
    assert "search the web" not in text
    assert "no web access" in text or "web" not in text
