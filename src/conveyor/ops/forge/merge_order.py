"""The merge order (MRG-9): which open issues with an older PR past review this one waits for."""

from __future__ import annotations

from datetime import datetime

from conveyor.core.labels import Status, has_stop_label
from conveyor.core.merge_rules import Queued, ahead
from conveyor.ops.forge.context import OpContext
from conveyor.ops.forge.state_store import fetch_state


def read_queue(ctx: OpContext, issue: int, pr: int, *, now: datetime) -> tuple[int, ...]:
    """The open `agent:working` issues whose older PR is past review (stopped ones never count)."""
    others: list[Queued] = []
    for other in ctx.forge.list_open_issues().issues:
        if other.number == issue or Status.WORKING.value not in other.labels:
            continue
        state = fetch_state(ctx, other.number).state
        # A wiki-only change has no PR to merge (its PR, if any, is closed): it never queues.
        if state is None or state.pr is None or state.pr_closed or state.pr >= pr:
            continue
        stopped = state.stopped is not None or has_stop_label(other.labels)
        stacked = state.stacked_on is not None
        others.append(Queued(other.number, state.pr, state.stage, stopped, state.lease, stacked))
    return ahead(pr, others, now=now, lease_hours=ctx.config.limits.lease_hours)
