"""money.per_session (BB-PAUSE-5): checked when a session ends, retried once, then failed."""

from __future__ import annotations

from typing import Any

import pytest

from conveyor.agents.launch import launch
from conveyor.core.session import FailureKind, SessionStatus
from tests.contract.agents.conftest import ACCEPT, Sessions
from tests.contract.agents.test_scripted_session import environ


def _costly(cost: float, retry: int | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {"turns": [{"cost": cost, "actions": [{"reply": ACCEPT}]}]}
    return entry if retry is None else {"retry": retry, **entry}


def test_a_session_over_its_money_budget_is_retried_once_with_the_fallback_model(
    sessions: Sessions,
) -> None:
    """The first over-budget launch is run again; a cheaper one's reply stands."""
    scenario = sessions.scenario(_costly(0.80, retry=0), _costly(0.05, retry=1))
    result = launch(sessions.spec(scenario, money_per_session=0.50), environ())
    assert result.status is SessionStatus.REPLIED
    assert result.model == "fallback-model"
    [first] = result.earlier
    assert first.cost_usd == 0.80
    assert result.total_cost_usd == pytest.approx(0.85), "both launches are paid for"


def test_a_second_session_over_its_money_budget_in_a_row_fails_as_the_models(
    sessions: Sessions,
) -> None:
    """Twice over: no reply stands, the failure is behavioural (the stage counts it)."""
    scenario = sessions.scenario(_costly(0.80))
    result = launch(sessions.spec(scenario, money_per_session=0.50), environ())
    assert (result.status, result.failure, result.reply) == (
        SessionStatus.FAILED, FailureKind.BEHAVIOURAL, None
    )  # fmt: skip
    assert "money.per_session" in (result.error or "")
    assert len(result.earlier) == 1


def test_a_session_of_unknown_cost_is_never_over_its_money_budget(sessions: Sessions) -> None:
    """No cost reported means unknown, not zero and not over: the reply stands."""
    scenario = sessions.scenario({"turns": [{"actions": [{"reply": ACCEPT}]}]})
    result = launch(sessions.spec(scenario, money_per_session=0.01), environ())
    assert (result.status, result.earlier) == (SessionStatus.REPLIED, ())
