"""The gate reserves every lens a first review runs: the count comes from the lens tuple (#50)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, get_args

import pytest

from conveyor.core import replies
from conveyor.core.config import Budgets, Role
from conveyor.core.findings import CODE_LENSES, LENS_ORDER
from conveyor.core.state import IssueState, Stage
from conveyor.orchestrator.gate import first_review_charge, launch_charge
from conveyor.orchestrator.snapshot import IssueView
from conveyor.stages import review
from conveyor.stages.effects import ChargeBudget, LaunchSession
from conveyor.stages.prompts import review as prompts
from tests.unit.orchestrator.factory import issue
from tests.unit.stages.factory import inputs
from tests.unit.stages.factory_review import HEAD, by_kind, issue_finding, run_to_end

STATE = IssueState(stage=Stage.REVIEW, pr=12, head_sha=HEAD, spec="## Behaviour\n- totals")
BUDGETS = Budgets(review=60_000, aggregate=20_000)


def _lens_reply(lens: str) -> replies.ReviewReply:
    """A lens's reply with one blocking finding (built as the reply model would, any lens)."""
    finding = replies.Finding.model_validate(issue_finding(f"{lens} is off"))
    values: dict[str, Any] = {"lens": lens, "findings": [finding], "summary": "read"}
    return replies.ReviewReply.model_construct(**values)


@pytest.mark.parametrize("lenses", [CODE_LENSES, (*CODE_LENSES, "fourth")])
def test_the_reservation_covers_every_lens_launched_and_the_aggregator(
    lenses: tuple[str, ...],
) -> None:
    """A first review with findings in every lens: the lenses its first charge saves (itself
    and those ahead) are the lenses it launches, and the gate reserved exactly what it charges."""
    start = review.start(inputs(), STATE)
    step = replace(start, memory=replace(start.memory, lenses=lenses))
    merged = [{"id": 1, "lenses": list(lenses), **issue_finding("off")}]
    answers: dict[str, object] = {f"review_{lens}": _lens_reply(lens) for lens in lenses}
    answers["aggregate"] = replies.AggregateReply.model_validate(
        {"findings": merged, "summary": "one"}
    )
    _, asked = run_to_end(step, review.transition, by_kind(**answers))
    launched = [a for a in asked if isinstance(a, LaunchSession) and a.budget_role is Role.REVIEW]
    first = next(a for a in asked if isinstance(a, ChargeBudget) and a.role is Role.REVIEW)
    aggregated = [a for a in asked if isinstance(a, ChargeBudget) and a.role is Role.AGGREGATE]
    assert len(launched) == len(lenses) == 1 + first.ahead
    charged = (1 + first.ahead) * BUDGETS.review + len(aggregated) * BUDGETS.aggregate
    assert first_review_charge(BUDGETS, lenses) == charged


def test_the_gate_counts_the_lenses_the_review_machine_runs_by_default() -> None:
    """The machine's first review and the gate's reservation read the same tuple."""
    assert review.start(inputs(), STATE).memory.lenses == CODE_LENSES
    view: IssueView = issue(1, Stage.REVIEW)
    assert launch_charge(view, Stage.REVIEW, BUDGETS) == first_review_charge(BUDGETS, CODE_LENSES)
    assert first_review_charge(BUDGETS) == len(CODE_LENSES) * 60_000 + 20_000


def test_a_lens_reply_accepts_every_lens_and_each_lens_has_its_prompt() -> None:
    """The reply model's lens names are `LENS_ORDER`, and each has a reviewer's prompt: a new
    lens must be named there too."""
    field = replies.ReviewReply.model_fields["lens"].annotation
    assert get_args(field) == LENS_ORDER
    assert set(LENS_ORDER) <= set(prompts.LENSES)
