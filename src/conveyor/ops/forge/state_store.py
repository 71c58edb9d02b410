"""Reading and saving the state comment on the forge (save-state, GH-6, GH-10)."""

from __future__ import annotations

from conveyor.core.state import IssueState
from conveyor.core.state_codec import StateLookup, TooNew, Undecodable, encode_state, find_state
from conveyor.forge.types import Comment
from conveyor.ops.forge.context import OpContext, fetch_comments


class StateRefused(RuntimeError):
    """The state comment may not be overwritten: it is newer than this code or undecodable."""


def fetch_state(ctx: OpContext, number: int) -> StateLookup:
    """The issue's state comment, as `find_state` reads it."""
    return find_state(fetch_comments(ctx, number), ctx.account)


def refusal(lookup: StateLookup) -> str | None:
    """Why the state comment may not be used or overwritten, or None when it may."""
    if isinstance(lookup.outcome, TooNew):
        version = lookup.outcome.version
        return f"state comment {lookup.comment_id} is version {version}, newer than this code"
    if isinstance(lookup.outcome, Undecodable):
        return f"state comment {lookup.comment_id} does not decode: {lookup.outcome.reason}"
    return None


def state_of(lookup: StateLookup) -> IssueState:
    """The decoded state, or a fresh one when the issue has none; refuses bad states.

    For callers that cannot go on without it (`StateRefused`); `refusal` asks first.
    """
    refused = refusal(lookup)
    if refused is not None:
        raise StateRefused(refused)
    return lookup.state or IssueState()


def save_state(
    ctx: OpContext, number: int, state: IssueState, lookup: StateLookup | None = None
) -> Comment | None:
    """Edit the state comment in place, or create it when missing; None when unchanged.

    A state that is newer than this code or does not decode is never
    overwritten (`StateRefused`). `lookup` saves a read when the caller has one.
    """
    if lookup is None:
        lookup = fetch_state(ctx, number)
    state_of(lookup)
    body = encode_state(state)
    if lookup.comment_id is None:
        return ctx.forge.create_comment(number, body)
    if lookup.state == state:
        return None
    return ctx.forge.edit_comment(lookup.comment_id, body, number)
