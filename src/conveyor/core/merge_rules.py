"""Merge rules: when a branch is behind, what a behind branch does next, and merge order.

Behind has three sources (MRG-4): the forge says so, the forge refuses the merge
because the base moved, or the verified commit lacks the base's current head,
checked locally (an unprotected base lets the forge merge a stale branch).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from conveyor.core.state import IssueState, Lease, Stage

# Stages past review: an issue here with an older PR is ahead in the merge order (MRG-9).
PAST_REVIEW = frozenset({Stage.SYNC, Stage.CHECKS, Stage.ACCEPT, Stage.SECURITY, Stage.MERGE})
_MOVED = ("base branch was modified", "behind", "not up to date", "out of date")


class Behind(StrEnum):
    """Why the branch counts as behind the base."""

    FORGE = "the forge reports the branch behind the base"
    REFUSED = "the forge refused the merge because the base moved"
    LOCAL = "the verified commit lacks the base's current head"
    STACK = "the prerequisite the branch is stacked on moved or merged"


def behind(*, mergeable_state: str, has_base: bool) -> Behind | None:
    """Whether the branch is behind before a merge is tried (None: it is not)."""
    if mergeable_state == "behind":
        return Behind.FORGE
    if not has_base:
        return Behind.LOCAL
    return None


def refused_as_behind(message: str) -> bool:
    """Whether the forge's refusal says the base moved (rather than a conflict or a rule)."""
    text = message.lower()
    return any(words in text for words in _MOVED)


def passed_everything(state: IssueState, head: str) -> bool:
    """Verify, CI, acceptance and security all passed at `head` (MRG-7)."""
    return state.verified_sha == head and state.passed_sha == head


class Next(StrEnum):
    """What a behind branch does next."""

    TESTS_ONLY = "rebase here and re-run only the tests"
    SYNC = "back to sync for a full re-check"
    SYNC_LIMIT = "stop: max_syncs rebases are used up"


def after_behind(state: IssueState, head: str, *, rebased_here: bool, max_syncs: int) -> Next:
    """A behind branch: rebase and test here once when it passed everything, else sync (MRG-5)."""
    if state.rounds.syncs >= max_syncs:
        return Next.SYNC_LIMIT
    if passed_everything(state, head) and not rebased_here:
        return Next.TESTS_ONLY
    return Next.SYNC


def count_sync(state: IssueState) -> IssueState:
    """One more rebase asked for by merge; the re-check it causes is paid from the rebase pool."""
    rounds = state.rounds.model_copy(update={"syncs": state.rounds.syncs + 1})
    return state.model_copy(update={"rounds": rounds, "merge_rebase": True})


@dataclass(frozen=True)
class Queued:
    """Another open issue as the merge order sees it."""

    issue: int
    pr: int | None
    stage: Stage
    stopped: bool
    lease: Lease | None
    stacked: bool = False


def expired(lease: Lease | None, now: datetime, lease_hours: float) -> bool:
    """A lease still held past `lease_hours` (its job died): it no longer blocks anyone."""
    if lease is None or lease.released:
        return False
    return now - lease.at > timedelta(hours=lease_hours)


def ahead(
    pr: int, others: Sequence[Queued], *, now: datetime, lease_hours: float
) -> tuple[int, ...]:
    """The issues whose older PR is past review and still open: this one waits for them.

    Ordering by PR number is total, so two issues never wait on each other (MRG-9).
    A stacked issue cannot merge before its prerequisite, so it holds no one (MRG-12).
    """
    return tuple(
        sorted(
            o.issue
            for o in others
            if o.pr is not None
            and o.pr < pr
            and o.stage in PAST_REVIEW
            and not o.stopped
            and not o.stacked
            and not expired(o.lease, now, lease_hours)
        )
    )
