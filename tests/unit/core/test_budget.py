"""Budgets: launch charges, the ceiling, the rebase pool and its reset."""

from __future__ import annotations

from conveyor.core.budget import (
    Charged,
    OverBudget,
    charge,
    give_back_ahead,
    keep_spent,
    launch_tokens,
    mark_ahead,
    money_spent,
    pool_for,
    record_usage,
    refund_at,
    spent,
    take_ahead,
)
from conveyor.core.config import Budgets, Limits, Role
from conveyor.core.restart import restart
from conveyor.core.state import IssueState, Pool, Stage, Stopped
from conveyor.core.stops import StopCode
from tests.unit.core.factory import T0


def charged(state: IssueState, role: Role, limits: Limits | None = None) -> IssueState:
    """The state after one paid launch; fails the test if refused."""
    result = charge(state, role, Budgets(), limits or Limits())
    assert isinstance(result, Charged)
    return result.state


def test_each_launch_is_charged_its_role_budget_from_a_named_pool() -> None:
    """Every charge is an entry with its role, pool and tokens (BUD-1, BUD-8)."""
    state = charged(IssueState(), Role.TRIAGE)
    assert [(c.role, c.pool, c.tokens) for c in state.charges] == [("triage", Pool.ISSUE, 50_000)]
    assert record_usage(state, 0, 31_000).charges[0].used == 31_000


def test_a_launch_past_the_ceiling_is_refused() -> None:
    """The launch that would pass issue_token_ceiling is refused with a reason (BUD-3)."""
    limits = Limits(issue_token_ceiling=200_000)
    state = charged(IssueState(), Role.IMPLEMENT, limits)
    result = charge(state, Role.REVIEW, Budgets(), limits)
    assert isinstance(result, OverBudget)
    assert "200,000" in result.reason


def test_a_zero_ceiling_turns_the_issue_budget_off() -> None:
    """With issue_token_ceiling 0 any number of launches is paid."""
    limits = Limits(issue_token_ceiling=0)
    state = IssueState()
    for _ in range(30):
        state = charged(state, Role.SPEC, limits)
    assert spent(state, Pool.ISSUE) == 30 * 300_000


def test_the_rebase_pool_pays_the_resolver_and_merge_requested_rechecks() -> None:
    """The resolver always, and check-fix/accept/security after a merge rebase (BUD-5, BUD-7)."""
    assert pool_for(IssueState(), Role.RESOLVER) is Pool.REBASE
    assert pool_for(IssueState(), Role.ACCEPT) is Pool.ISSUE
    assert pool_for(IssueState(merge_rebase=True), Role.ACCEPT) is Pool.REBASE
    assert pool_for(IssueState(merge_rebase=True), Role.FIX) is Pool.ISSUE


def test_the_rebase_pool_runs_out_and_resets_at_restart() -> None:
    """Five resolver attempts use 500k; the sixth is refused until a restart empties it (BUD-6)."""
    state = IssueState()
    for _ in range(5):
        state = charged(state, Role.RESOLVER)
    assert isinstance(charge(state, Role.RESOLVER, Budgets(), Limits()), OverBudget)
    stopped = state.model_copy(
        update={"stopped": Stopped(control=StopCode.BUDGET, reason="r", stage=Stage.SYNC, at=T0)}
    )
    assert isinstance(charge(restart(stopped), Role.RESOLVER, Budgets(), Limits()), Charged)


def test_charges_given_back_keep_the_pools_start_on_the_charges_after_them() -> None:
    """A charge given back (never launched, or an infrastructure failure) leaves the rebase
    pool and the money count starting at the same later charges (BUD-6, BB-PAUSE-4)."""
    state = charged(charged(IssueState(), Role.TRIAGE), Role.SPEC)
    state = state.model_copy(update={"rebase_from": 2, "money_from": 1})
    state = charged(state, Role.REVIEW)
    state = mark_ahead(charged(mark_ahead(charged(state, Role.REVIEW), 3), Role.REVIEW), 4)
    taken = take_ahead(state, Role.REVIEW)
    assert taken is not None
    state, at = taken
    assert at == 3
    state = give_back_ahead(refund_at(state, 0))
    assert [(c.role, c.ahead) for c in state.charges] == [("spec", False)] + [("review", False)] * 2
    assert (state.rebase_from, state.money_from) == (1, 0)
    assert take_ahead(state, Role.REVIEW) is None


def test_a_session_that_ran_unasked_keeps_its_charge_and_what_it_spent() -> None:
    """A lens started ahead of a first lens that failed: its charge, given back with the
    stage's end, comes back with its usage and cost, so the ceiling and money count it."""
    state = charged(IssueState(), Role.REVIEW)
    tokens = launch_tokens(Role.REVIEW, Budgets(), Limits())
    kept = keep_spent(state, Role.REVIEW, tokens, 12_000, 0.25)
    assert kept.charges[-1].model_dump() == {
        "role": "review", "pool": Pool.ISSUE, "tokens": tokens, "used": 12_000,
        "cost_usd": 0.25, "ahead": False,
    }  # fmt: skip
    assert spent(kept, Pool.ISSUE) == 2 * tokens
    assert money_spent(kept) == 0.25
    assert launch_tokens(Role.RESOLVER, Budgets(), Limits()) == Limits().resolver_charge
