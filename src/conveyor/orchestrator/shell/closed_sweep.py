"""The sweep of closed issues (DONE-4): merged issues whose close-out did not finish, and
approved issues a person acted on after the handover.

A merge closes its issue, so the open-issue snapshot never sees it again. A close-out cut
short (a kill, a forge error) leaves it closed and still labelled `agent:working` (the
merged label is the close-out's last write); a person's merge of a handed-over PR leaves
it closed and labelled `agent:approved` (or with the `pr-closed` or `branch-changed` stop
the handed-over rule put on it before they merged anyway). Each label's list is asked
(conditionally, on its ETag) only when something may have changed: on the first tick of a
home, when an open issue left the open list, and while the last list still held one to
settle. An idle tick costs nothing more. Each one listed is read (state, PR). One whose
PR did not merge (a person closed the issue, and maybe the PR: the change is not wanted)
is left alone for ten minutes at a time. An issue whose state is at `approved` (a landing
cut short is labelled working) is the handed-over rule's, not the close-out's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta

from conveyor.core.labels import Status
from conveyor.core.state import IssueState
from conveyor.core.state_codec import find_state
from conveyor.core.stops import StopCode
from conveyor.forge.protocol import Forge
from conveyor.forge.types import PullRequest
from conveyor.orchestrator.closeout import closed_outcome, counted
from conveyor.orchestrator.shell.snapshot_store import SnapshotStore
from conveyor.orchestrator.snapshot import ClosedView, HandedView, Lease, PrState

# Each label's list, under its key in the store; the stop labels are the two the handed-over
# rule puts on an approved issue, which a person may merge anyway (only those at `approved`
# are read from them: a mid-pipeline stop whose PR a person merged is left alone, as before).
LISTS = {
    Status.WORKING.value: "closed-working",
    Status.APPROVED.value: "closed-approved",
    StopCode.PR_CLOSED.label: "closed-pr-closed",
    StopCode.BRANCH_CHANGED.label: "closed-branch-changed",
}
STOPS = frozenset({StopCode.PR_CLOSED.label, StopCode.BRANCH_CHANGED.label})
SETTLED = "closed-settled:{}"


@dataclass(frozen=True, slots=True)
class ClosedFound:
    """What the sweep found: merged issues to close out, approved issues for the handed rule."""

    merged: tuple[ClosedView, ...] = ()
    handed: tuple[HandedView, ...] = ()


def _kept(store: SnapshotStore, key: str) -> tuple[str | None, tuple[int, ...], bool]:
    """The last list's ETag and numbers, and whether it is due again (first tick: yes)."""
    text = store.kept(key)
    if text is None:
        return None, (), True
    try:
        data = json.loads(text)
        return data["etag"], tuple(int(n) for n in data["numbers"]), bool(data["due"])
    except (ValueError, KeyError, TypeError):
        return None, (), True


def _lease(state: IssueState, hours: float) -> Lease | None:
    held = state.lease
    if held is None or held.released:
        return None
    return Lease(held.lane, held.at + timedelta(hours=hours))


def pr_state(pr: PullRequest) -> PrState:
    """Open, merged, or closed without a merge."""
    return "merged" if pr.merged else pr.state


def handed_view(
    number: int,
    state: IssueState,
    pr: tuple[int, PrState, str],
    *,
    hours: float,
    issue_open: bool,
    stopped: StopCode | None = None,
) -> HandedView:
    """An approved issue's view with its PR (number, state, head) as just read."""
    return HandedView(
        number, pr[0], pr[1], head=pr[2] or None, verified=state.verified_sha,
        issue_open=issue_open, stopped=stopped,
        lease=_lease(state, hours),
    )  # fmt: skip


def _view(
    forge: Forge,
    store: SnapshotStore,
    number: int,
    *,
    account: str,
    now: datetime,
    hours: float,
    under_stop: bool,
) -> ClosedView | HandedView | None:
    """The closed issue's view when there is something to settle (`closeout.py` decides
    what); else it is settled for ten minutes."""
    state = find_state(forge.list_comments(number).comments, account).state
    if state is not None and state.pr is not None and counted(state.stage, under_stop=under_stop):
        pr = forge.get_pr(state.pr)
        outcome = closed_outcome(state.stage, pr_merged=pr.merged)
        if outcome == "landing":
            read = (pr.number, pr_state(pr), pr.head_sha)
            return handed_view(number, state, read, hours=hours, issue_open=False)
        if outcome == "close-out":
            return ClosedView(number, pr.number, _lease(state, hours))
    store.put_answer(SETTLED.format(number), "yes", now)
    return None


def _listed(
    forge: Forge, store: SnapshotStore, label: str, *, vanished: bool
) -> tuple[str | None, tuple[int, ...]] | None:
    """The closed issues carrying `label` when its list is due (None: not asked this tick)."""
    key = LISTS[label]
    etag, numbers, due = _kept(store, key)
    if not (due or vanished):
        return None
    if not due:  # kept first: a read that fails is made again next tick
        store.keep(key, json.dumps({"etag": etag, "numbers": list(numbers), "due": True}))
    page = forge.list_closed_issues(label, etag)
    if not page.not_modified:
        numbers = tuple(sorted(issue.number for issue in page.issues))
    return page.etag, numbers


def closed_sweep(
    forge: Forge,
    store: SnapshotStore,
    *,
    account: str,
    lease_hours: float,
    vanished: bool,
    now: datetime,
) -> ClosedFound:
    """The closed issues still labelled working, approved, or with a stop the handed-over rule
    makes, with something to settle."""
    merged: list[ClosedView] = []
    handed: list[HandedView] = []
    for label, key in LISTS.items():
        listed = _listed(forge, store, label, vanished=vanished)
        if listed is None:
            continue
        etag, numbers = listed
        found = 0
        for number in numbers:
            if store.answer(SETTLED.format(number), now) == "yes":
                continue
            view = _view(
                forge, store, number, account=account, now=now, hours=lease_hours,
                under_stop=label in STOPS,
            )  # fmt: skip
            if isinstance(view, ClosedView):
                merged.append(view)
            elif view is not None:
                handed.append(view)
            found += view is not None
        # Due again while one waits (a job may still be finishing it).
        kept = {"etag": etag, "numbers": list(numbers), "due": bool(found)}
        store.keep(key, json.dumps(kept))
    return ClosedFound(tuple(merged), tuple(handed))
