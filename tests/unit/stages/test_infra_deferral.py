"""Infrastructure failures defer a stage and give the launch charge back; money is recorded."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from conveyor.core.agent_failure import InfraKind
from conveyor.core.budget import Charged as Paid
from conveyor.core.budget import charge, money_spent, over_money
from conveyor.core.config import Budgets, Limits, Role
from conveyor.core.restart import restart
from conveyor.core.session import SessionStatus
from conveyor.core.state import Charge, IssueState, Pool, Stage
from conveyor.core.state import Stopped as StoppedState
from conveyor.core.stops import StopCode
from conveyor.stages import accept, implement, review, triage
from conveyor.stages.effects import ChargeBudget, Charged, LaunchSession, SessionEnded
from conveyor.stages.effects_review import ReviewPrepared
from conveyor.stages.step import Released, Step
from tests.unit.stages.factory import SPEC_HEAD, START, inputs, triage_reply
from tests.unit.stages.factory_review import HEAD

SIGNED_OUT = SessionEnded(SessionStatus.FAILED, None, "Not logged in", 0, infra=InfraKind.AUTH)
STATES = {
    "triage": IssueState(),
    "implement": IssueState(stage=Stage.IMPLEMENT, start_sha=START, head_sha=SPEC_HEAD, spec="x"),
    "accept": IssueState(stage=Stage.ACCEPT, head_sha=SPEC_HEAD, spec="x", implemented=True),
    "review": IssueState(stage=Stage.REVIEW, head_sha=SPEC_HEAD, spec="x", implemented=True),
}
MACHINES: dict[str, Any] = {
    "triage": triage, "implement": implement, "accept": accept, "review": review,
}  # fmt: skip


def _to_launch(name: str) -> tuple[Step[Any], IssueState]:
    """Run the stage to its first launch, charging for real; returns the step and the state."""
    machine = MACHINES[name]
    step = machine.start(inputs(), STATES[name])
    for _ in range(6):
        match step.action:
            case ChargeBudget(role=role):
                paid = charge(step.memory.state, role, Budgets(), Limits())
                assert isinstance(paid, Paid)
                step = machine.transition(step.memory, Charged(paid.state))
            case LaunchSession():
                return step, step.memory.state
            case _:  # review prepares its diff first
                prepared = ReviewPrepared("/job/review/diff", HEAD, False, ("app.py",))
                step = machine.transition(step.memory, prepared)
    msg = f"{name} never launched"
    raise AssertionError(msg)


@pytest.mark.parametrize("name", sorted(MACHINES))
def test_a_failed_sign_in_releases_the_stage_uncounted_and_uncharged(name: str) -> None:
    """No attempt counted, no stop: the lease is released, the launch charge given back."""
    step, charged = _to_launch(name)
    assert len(charged.charges) == 1
    end = MACHINES[name].transition(step.memory, SIGNED_OUT).action
    assert isinstance(end, Released), end
    assert end.state.charges == ()
    assert end.state.rounds == STATES[name].rounds
    assert "Not logged in" in end.reason


def test_a_behavioural_failure_is_still_the_issues() -> None:
    """A session that ended without a reply counts as a triage attempt and keeps its charge."""
    step, _ = _to_launch("triage")
    ended = SessionEnded(SessionStatus.FAILED, None, "no reply", 500)
    after = triage.transition(step.memory, ended).memory
    assert after.state.rounds.triage_attempts == 1
    assert after.state.charges[0].used == 500


def test_a_sessions_cost_is_kept_beside_its_charge_and_counts_to_the_issue() -> None:
    """BB-PAUSE-4: what the sessions cost is summed from the state the forge holds."""
    step, _ = _to_launch("triage")
    ended = SessionEnded(SessionStatus.REPLIED, triage_reply("ready"), used=900, cost_usd=0.75)
    state = triage.transition(step.memory, ended).memory.state
    assert state.charges[0].cost_usd == 0.75
    assert money_spent(state) == 0.75
    assert over_money(state, 1.0) is None
    over = over_money(state, 0.5)
    assert over is not None
    assert "money.per_issue" in over.reason


def test_a_restart_gives_the_issue_a_fresh_money_budget() -> None:
    """Lifting the budget stop starts the money count again (STOP-6: fresh limits)."""
    at = datetime(2026, 11, 1, tzinfo=UTC)
    spent = IssueState(
        charges=(Charge(role=Role.TRIAGE.value, pool=Pool.ISSUE, tokens=10, cost_usd=3.0),),
        stopped=StoppedState(control=StopCode.BUDGET, reason="money", stage=Stage.SPEC, at=at),
    )
    assert money_spent(spent) == 3.0
    assert money_spent(restart(spent)) == 0.0
