"""The tick's read of the open issues at `approved`: their PRs as the forge has them now.

Only when some open issue's state is at `approved` (`handover.merge = "person"` left its PR
for a person). The open PR list is asked with its ETag, the same list (and the same kept
copy) the reviews of people's PRs read, and the tick reads it once for both (`tick.py`),
so a quiet tick costs one 304: a PR in it is open,
with its head. A PR missing from it was merged or closed; it is read once, and the answer
kept for ten minutes (merged for good; closed until the list shows it open again, though a
PR reopened and merged within those ten minutes waits for them to pass). The closed issues
at `approved` come from the closed-issue sweep (`closed_sweep.py`).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from conveyor.core.state import Stage
from conveyor.forge.errors import ForgeError
from conveyor.forge.pr_types import OpenPull
from conveyor.forge.protocol import Forge
from conveyor.orchestrator.handed import standing_stop
from conveyor.orchestrator.shell.closed_sweep import handed_view, pr_state
from conveyor.orchestrator.shell.people_poll import open_pulls
from conveyor.orchestrator.shell.snapshot_store import CachedIssue, SnapshotStore
from conveyor.orchestrator.snapshot import HandedView, PrState

ANSWER = "handed-pr:{}"
Pulls = tuple[OpenPull, ...] | ForgeError  # the shared read, or why it failed
_STATES: dict[str, PrState] = {"open": "open", "merged": "merged", "closed": "closed"}


def _gone(forge: Forge, store: SnapshotStore, number: int, now: datetime) -> tuple[PrState, str]:
    """A PR missing from the open list: merged or closed, and its head (kept ten minutes)."""
    key = ANSWER.format(number)
    kept = store.answer(key, now)
    if kept is not None and " " in kept:
        how, head = kept.split(" ", 1)
        if how in _STATES:
            return _STATES[how], head
    pr = forge.get_pr(number)
    store.put_answer(key, f"{pr_state(pr)} {pr.head_sha}", now)
    return pr_state(pr), pr.head_sha


def awaiting(entries: Iterable[CachedIssue]) -> list[CachedIssue]:
    """The open issues at `approved` with a PR: the ones this read is for."""
    return [
        entry
        for entry in entries
        if entry.state is not None
        and entry.state.stage is Stage.APPROVED
        and entry.state.pr is not None
    ]


def shared_pulls(
    forge: Forge, store: SnapshotStore, entries: Iterable[CachedIssue], *, reviews: bool
) -> Pulls:
    """The open PR list, read once per tick for this rule and the review rule (`reviews`),
    and only when one of them reads it; a failure is each reader's to report."""
    if not (reviews or awaiting(entries)):
        return ()
    try:
        return open_pulls(forge, store)
    except ForgeError as error:
        return error


def handed_views(
    forge: Forge,
    store: SnapshotStore,
    entries: Iterable[CachedIssue],
    *,
    lease_hours: float,
    now: datetime,
    pulls: Pulls | None = None,
) -> tuple[HandedView, ...]:
    """Every open issue at `approved` with its PR's state and head (nothing is read when there
    is no such issue); `pulls`, when given, is the tick's read of the open PRs (its failure
    raised here)."""
    approved = awaiting(entries)
    if not approved:
        return ()
    listed = open_pulls(forge, store) if pulls is None else pulls
    if isinstance(listed, ForgeError):
        raise listed
    by_number = {pull.number: pull for pull in listed}
    views: list[HandedView] = []
    for entry in approved:
        state = entry.state
        assert state is not None
        assert state.pr is not None
        pull = by_number.get(state.pr)
        how: PrState
        if pull is not None:
            how, head = "open", pull.head_sha
        else:
            how, head = _gone(forge, store, state.pr, now)
        view = handed_view(
            entry.issue.number, state, (state.pr, how, head), hours=lease_hours, issue_open=True,
            stopped=standing_stop(entry.issue.labels, state.stopped),
        )  # fmt: skip
        views.append(view)
    return tuple(sorted(views, key=lambda v: v.number))
