"""Closing and refreshing claim comments: the forge side of the claim rules (CLAIM-11..15)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from conveyor.core.claims import Claim, closed_body, live_claims, parse_claims
from conveyor.forge.types import Comment
from conveyor.ops.forge.context import OpContext, fetch_comments


def close_claims(ctx: OpContext, number: int, claims: Iterable[Claim], why: str) -> int:
    """Edit each claim to closed, saying why; returns how many were closed."""
    closed = 0
    for claim in claims:
        ctx.forge.edit_comment(claim.comment_id, closed_body(ctx.signature(), claim, why), number)
        closed += 1
    return closed


def close_live_claims(
    ctx: OpContext, number: int, now: datetime, why: str, comments: Iterable[Comment] | None = None
) -> int:
    """Close every live claim on the issue (stop, ask, split, merge: CLAIM-15)."""
    listed = fetch_comments(ctx, number) if comments is None else comments
    live = live_claims(parse_claims(listed, ctx.account), now, ctx.config.limits.lease_hours)
    return close_claims(ctx, number, live, why)
