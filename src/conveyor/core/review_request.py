"""A request for the pipeline's review of a person's PR: who made the one that stands.

On GitHub a person asks an account for a review by adding it to the PR's requested
reviewers; the PR's events record it (`review_requested`, with `actor` the person who asked
and `requested_reviewer` the account) and its withdrawal (`review_request_removed`). The
request that stands is the last `review_requested` for the account not followed by a
`review_request_removed` for it; its event's id names it, so that one request is one pass
(a pass records the id it claimed, and a request whose id was claimed starts nothing).
A request to a team the account belongs to names no account and does not count.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from conveyor.core.trust import same_login

RequestAction = Literal["requested", "removed"]


@dataclass(frozen=True)
class RequestEvent:
    """A review requested from (or withdrawn from) `reviewer` by `actor`; `reviewer` is ""
    for a team's request. `id` is the forge's event id (they grow with time)."""

    action: RequestAction
    reviewer: str
    actor: str
    id: int
    created_at: datetime


@dataclass(frozen=True)
class ReviewRequest:
    """The request that stands: who made it, and its event's id."""

    by: str
    id: int


def standing_request(events: Iterable[RequestEvent], account: str) -> ReviewRequest | None:
    """The last request of `account`'s review that nobody withdrew since (None: none)."""
    found: ReviewRequest | None = None
    for event in sorted(events, key=lambda e: e.id):
        if not event.reviewer or not same_login(event.reviewer, account):
            continue
        found = ReviewRequest(event.actor, event.id) if event.action == "requested" else None
    return found


def unclaimed(request: ReviewRequest | None, claimed: Iterable[int]) -> ReviewRequest | None:
    """The request, unless a pass claimed it already (one request is one pass)."""
    if request is None or request.id in set(claimed):
        return None
    return request
