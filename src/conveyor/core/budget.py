"""Token budgets: charges at launch, from the issue pool or the rebase pool (BUD-1..8)."""

from __future__ import annotations

from dataclasses import dataclass

from conveyor.core.config import Budgets, Limits, Role
from conveyor.core.state import Charge, IssueState, Pool
from conveyor.core.stops import StopCode

# Sessions the rebase pool pays for after a rebase the merge stage asked for (BUD-5).
RECHECK_ROLES = frozenset({Role.CHECK_FIX, Role.ACCEPT, Role.SECURITY})


def pool_for(state: IssueState, role: Role) -> Pool:
    """Which pool pays, derived from the state; the resolver always uses the rebase pool."""
    if role is Role.RESOLVER:
        return Pool.REBASE
    if state.merge_rebase and role in RECHECK_ROLES:
        return Pool.REBASE
    return Pool.ISSUE


def spent(state: IssueState, pool: Pool) -> int:
    """Tokens charged so far to a pool (the rebase pool only since its last reset)."""
    charges = state.charges[state.rebase_from :] if pool is Pool.REBASE else state.charges
    return sum(c.tokens for c in charges if c.pool is pool)


@dataclass(frozen=True)
class Charged:
    """The launch is paid: the state with the charge appended."""

    state: IssueState
    charge: Charge


@dataclass(frozen=True)
class OverBudget:
    """The launch would pass a pool's limit: the issue stops with `budget`."""

    reason: str
    code: StopCode = StopCode.BUDGET


def launch_tokens(role: Role, budgets: Budgets, limits: Limits) -> int:
    """What a session of `role` is charged at launch: its budget (the resolver's own charge)."""
    return limits.resolver_charge if role is Role.RESOLVER else budgets.for_role(role)


def charge(state: IssueState, role: Role, budgets: Budgets, limits: Limits) -> Charged | OverBudget:
    """Charge one session of `role` its budget at launch, or refuse (BUD-1, BUD-3, BUD-5)."""
    pool = pool_for(state, role)
    tokens = launch_tokens(role, budgets, limits)
    before = spent(state, pool)
    if pool is Pool.ISSUE:
        ceiling = limits.issue_token_ceiling
        if ceiling and before + tokens > ceiling:
            return OverBudget(
                f"a {role.value} session ({tokens:,} tokens) would take the issue to "
                f"{before + tokens:,}, past its ceiling of {ceiling:,}"
            )
    elif before + tokens > limits.rebase_token_budget:
        return OverBudget(
            f"a {role.value} session ({tokens:,} tokens) would take the rebase pool to "
            f"{before + tokens:,}, past its {limits.rebase_token_budget:,}"
        )
    entry = Charge(role=role.value, pool=pool, tokens=tokens)
    return Charged(state.model_copy(update={"charges": (*state.charges, entry)}), entry)


def record_usage(
    state: IssueState, index: int, used: int | None, cost_usd: float | None = None
) -> IssueState:
    """Record a session's reported usage and cost beside its charge (BUD-9)."""
    if used is None and cost_usd is None:
        return state
    charges = list(state.charges)
    update: dict[str, object] = {}
    if used is not None:
        update["used"] = used
    if cost_usd is not None:
        update["cost_usd"] = cost_usd
    charges[index] = charges[index].model_copy(update=update)
    return state.model_copy(update={"charges": tuple(charges)})


def refund_at(state: IssueState, index: int) -> IssueState:
    """Drop one launch charge: its session failed on infrastructure, or never launched."""
    charges = (*state.charges[:index], *state.charges[index + 1 :])
    return state.model_copy(
        update={
            "charges": charges,
            "rebase_from": state.rebase_from - int(index < state.rebase_from),
            "money_from": state.money_from - int(index < state.money_from),
        }
    )


def mark_ahead(state: IssueState, index: int) -> IssueState:
    """The state with the charge at `index` saved ahead of its session's launch."""
    charges = list(state.charges)
    charges[index] = charges[index].model_copy(update={"ahead": True})
    return state.model_copy(update={"charges": tuple(charges)})


def take_ahead(state: IssueState, role: Role) -> tuple[IssueState, int] | None:
    """A launch of `role` takes the first charge saved ahead for it (no save: the charge is
    on the forge already); None when there is none."""
    for index, entry in enumerate(state.charges):
        if entry.ahead and entry.role == role.value:
            charges = list(state.charges)
            charges[index] = entry.model_copy(update={"ahead": False})
            return state.model_copy(update={"charges": tuple(charges)}), index
    return None


def give_back_ahead(state: IssueState) -> IssueState:
    """The state without the charges still ahead: their sessions never launched in a job
    that ended, or may have in one that crashed, which, as an infrastructure failure, owes
    nothing for them."""
    for index in reversed(range(len(state.charges))):
        if state.charges[index].ahead:
            state = refund_at(state, index)
    return state


def keep_spent(
    state: IssueState, role: Role, tokens: int, used: int | None, cost_usd: float | None
) -> IssueState:
    """The state with the charge of a session that ran without its stage asking for it (a
    lens started ahead of a first lens that failed): its charge was given back when the
    stage ended, but what it reported spending is the issue's, against the token ceiling
    and `money.per_issue` like any session's (BUD-9)."""
    entry = Charge(role=role.value, pool=pool_for(state, role), tokens=tokens, used=used,
                   cost_usd=cost_usd)  # fmt: skip
    return state.model_copy(update={"charges": (*state.charges, entry)})


def money_spent(state: IssueState) -> float:
    """Dollars the issue's sessions cost since its last restart (unknown costs count as 0)."""
    return sum(c.cost_usd or 0.0 for c in state.charges[state.money_from :])


def over_money(state: IssueState, per_issue: float | None) -> OverBudget | None:
    """The issue has cost `per_issue` dollars or more: no session starts (BB-PAUSE-4)."""
    if per_issue is None:
        return None
    cost = money_spent(state)
    if cost < per_issue:
        return None
    return OverBudget(
        f"the issue's sessions cost {cost:.2f} USD, money.per_issue is {per_issue:.2f}"
    )


def reset_rebase_pool(state: IssueState) -> IssueState:
    """Empty the rebase pool (at merge and at restart, BUD-6)."""
    return state.model_copy(update={"rebase_from": len(state.charges), "merge_rebase": False})
