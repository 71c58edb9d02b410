"""The release op: the job ends unfinished; the lane keeps stage and lease (CLAIM-14)."""

from __future__ import annotations

from datetime import datetime

from conveyor.core.claims import live_claims, parse_claims, renewal_due, still_working_body
from conveyor.core.state import IssueState
from conveyor.ops.forge.claim_comments import close_live_claims
from conveyor.ops.forge.context import OpContext, fetch_comments
from conveyor.ops.forge.labels import set_agent_label
from conveyor.ops.forge.state_store import fetch_state, save_state, state_of


def release(
    ctx: OpContext, number: int, *, lane: str, now: datetime, state: IssueState | None = None
) -> IssueState:
    """Mark the lease released (stage and lane kept) and add "still working at" to the claim.

    `state` is the state to save with the lease released (one edit of the state
    comment); without it the saved state is released as it is.
    """
    lookup = fetch_state(ctx, number)
    current = state_of(lookup)
    if state is None:
        state = current
    if state.lease is not None and state.lease.lane == lane and not state.lease.released:
        lease = state.lease.model_copy(update={"released": True})
        state = state.model_copy(update={"lease": lease})
    save_state(ctx, number, state, lookup)
    comments = fetch_comments(ctx, number)
    hours = ctx.config.limits.lease_hours
    for claim in live_claims(parse_claims(comments, ctx.account), now, hours):
        if claim.lane != lane:
            continue
        body = next(c.body for c in comments if c.id == claim.comment_id)
        if not renewal_due(claim, body, now, hours):
            continue
        refreshed = still_working_body(body, lane, now)
        if refreshed != body:
            ctx.forge.edit_comment(claim.comment_id, refreshed, number)
    return state


def set_aside(ctx: OpContext, number: int, reason: str, *, now: datetime) -> None:
    """No session could run (an agent paused): take `agent:working` off and close the lane's
    claim saying why, so nothing on the forge claims work that is not running. The state keeps
    the stage; the next job claims the issue again (a new claim comment, the label back)."""
    issue = ctx.forge.get_issue(number)
    set_agent_label(ctx, number, issue.labels, None)
    close_live_claims(
        ctx,
        number,
        now,
        f"paused, nothing runs for it now: {reason}. The next job claims it again.",
    )
