"""Which open issues wait for work, and why the others do not (CLAIM-4..7, TRUST-3, TRUST-7)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from conveyor.core.labels import Status, has_stop_label
from conveyor.core.restart import is_restart
from conveyor.core.signatures import parse_marker
from conveyor.core.state import IssueState, Stage
from conveyor.core.trust import CommentLike, Kind, Trust

QUESTIONS = "questions"

Reason = Literal[
    "new",
    "answered",
    "lease-expired",
    "released",
    "restart",
    "take-stopped",
    "closed",
    "untrusted",
    "stopped",
    "left-stopped",
    "waiting-for-answer",
    "leased",
    "merged",
    "approved",
    "split",
    "state-too-new",
    "state-undecodable",
    "not-approved",
]


@dataclass(frozen=True)
class Pickup:
    """The decision for one issue: take it (fresh or as a restart) or skip it, with why."""

    action: Literal["take", "restart", "skip"]
    reason: Reason


@dataclass(frozen=True)
class IssueFacts:
    """What pickup reads of one issue."""

    number: int
    author: str
    open: bool
    labels: tuple[str, ...]
    state: IssueState | None
    state_problem: Literal["too-new", "undecodable"] | None = None
    answered: bool = False


def answered(comments: Iterable[CommentLike], trust: Trust) -> bool:
    """A trusted person replied after the pipeline's latest questions (TRUST-7)."""
    ordered = sorted(comments, key=lambda c: c.id)
    asked = [
        c.id
        for c in ordered
        if trust.pipeline(c) and (m := parse_marker(c.body)) is not None and m.kind == QUESTIONS
    ]
    if not asked:
        return False
    return any(c.id > asked[-1] and trust.kind(c) is Kind.TRUSTED for c in ordered)


def pickup(
    facts: IssueFacts,
    trust: Trust,
    now: datetime,
    lease_hours: float,
    *,
    by_number: bool = False,
    take_stopped: bool = False,
    landing: bool = False,
) -> Pickup:
    """Whether an issue waits for work; one rule for sweeps and runs by number.

    `landing` is a merge job closing out a PR a person merged after its handover (the job
    read the PR as merged): see `_landing`.
    """
    if landing:
        return _landing(facts, now, lease_hours)
    if (never := _never_ours(facts, trust)) is not None:
        return never
    if has_stop_label(facts.labels):
        if by_number and take_stopped:
            return Pickup("restart", "take-stopped")
        return Pickup("skip", "left-stopped" if by_number else "stopped")
    if is_restart(facts.labels, facts.state):
        return Pickup("restart", "restart")
    return _by_status(facts, now, lease_hours)


def _never_ours(facts: IssueFacts, trust: Trust) -> Pickup | None:
    """A skip for a closed issue, an untrusted author, or a state that cannot be read."""
    if not facts.open:
        return Pickup("skip", "closed")
    if not trust.user(facts.author):
        return Pickup("skip", "untrusted")
    if facts.state_problem == "too-new":
        return Pickup("skip", "state-too-new")
    if facts.state_problem == "undecodable":
        return Pickup("skip", "state-undecodable")
    return None


def _landing(facts: IssueFacts, now: datetime, lease_hours: float) -> Pickup:
    """An approved issue whose PR a person merged is taken whatever its labels and whether
    the merge closed it (it may carry `agent:approved`, `agent:working` from a landing cut
    short, or the stop a closed PR left before a person reopened and merged it); only a
    state this version cannot read, one not at `approved`, or another job's live lease
    holds it."""
    if facts.state_problem == "too-new":
        return Pickup("skip", "state-too-new")
    if facts.state_problem == "undecodable":
        return Pickup("skip", "state-undecodable")
    if facts.state is None or facts.state.stage is not Stage.APPROVED:
        return Pickup("skip", "not-approved")
    return _by_lease(facts, now, lease_hours)


def _by_status(facts: IssueFacts, now: datetime, lease_hours: float) -> Pickup:
    """The decision the issue's status label gives (none: a new issue)."""
    labels = facts.labels
    if Status.MERGED in labels:
        return Pickup("skip", "merged")
    if Status.APPROVED in labels:
        return Pickup("skip", "approved")
    if Status.SPLIT in labels:
        return Pickup("skip", "split")
    if Status.NEEDS_INFO in labels:
        return (
            Pickup("take", "answered") if facts.answered else Pickup("skip", "waiting-for-answer")
        )
    if Status.WORKING in labels:
        return _by_lease(facts, now, lease_hours)
    return Pickup("take", "new")


def _by_lease(facts: IssueFacts, now: datetime, lease_hours: float) -> Pickup:
    """A working issue is taken once its lease is gone, released or older than `lease_hours`."""
    lease = facts.state.lease if facts.state else None
    if lease is None:
        return Pickup("take", "lease-expired")
    if lease.released:
        return Pickup("take", "released")
    if now - lease.at >= timedelta(hours=lease_hours):
        return Pickup("take", "lease-expired")
    return Pickup("skip", "leased")
