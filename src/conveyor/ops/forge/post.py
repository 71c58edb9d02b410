"""Posting signed comments on an issue or its PR, at most once per run and kind (GH-11..15)."""

from __future__ import annotations

from conveyor.core.signatures import Signature
from conveyor.forge.types import Comment
from conveyor.ops.forge.context import OpContext, fetch_comments, find_marked


def post_comment(
    ctx: OpContext, number: int, kind: str, text: str, signature: Signature | None = None
) -> Comment:
    """Post a signed comment, or finish an earlier attempt found by its marker.

    The marker holds the role, the kind and the run id, so running the same
    step again edits (if needed) instead of posting a second copy.
    """
    sig = signature or ctx.signature()
    body = sig.sign(kind, text)
    earlier = find_marked(fetch_comments(ctx, number), ctx, sig.marker(kind))
    if earlier is None:
        return ctx.forge.create_comment(number, body)
    if earlier.body != body:
        return ctx.forge.edit_comment(earlier.id, body, number)
    return earlier
