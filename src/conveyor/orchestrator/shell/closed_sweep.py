"""The sweep of closed issues (DONE-4): merged issues whose close-out did not finish.

The merge closes its issue, so the open-issue snapshot never sees it again. A close-out
cut short (a kill, a forge error) leaves it closed and still labelled `agent:working`
(the merged label is the close-out's last write). Those are listed, conditionally, only
when something may have changed: on the first tick of a home, when an open issue left
the open list, and while the last list still held one to settle. An idle tick costs
nothing more. Each one listed is read (state, PR); a closed issue whose PR did not
merge (a person closed it) is left alone for ten minutes at a time.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta

from conveyor.core.labels import Status
from conveyor.core.state_codec import find_state
from conveyor.forge.protocol import Forge
from conveyor.orchestrator.shell.snapshot_store import SnapshotStore
from conveyor.orchestrator.snapshot import ClosedView, Lease

LIST_KEY = "closed-working"
SETTLED = "closed-settled:{}"


def _kept(store: SnapshotStore) -> tuple[str | None, tuple[int, ...], bool]:
    """The last list's ETag and numbers, and whether it is due again (first tick: yes)."""
    text = store.kept(LIST_KEY)
    if text is None:
        return None, (), True
    try:
        data = json.loads(text)
        return data["etag"], tuple(int(n) for n in data["numbers"]), bool(data["due"])
    except (ValueError, KeyError, TypeError):
        return None, (), True


def _view(
    forge: Forge, store: SnapshotStore, number: int, *, account: str, now: datetime, hours: float
) -> ClosedView | None:
    """The closed issue's view when its PR merged; else it is settled for ten minutes."""
    state = find_state(forge.list_comments(number).comments, account).state
    merged = False
    if state is not None and state.pr is not None:
        merged = forge.get_pr(state.pr).merged
    if state is None or state.pr is None or not merged:
        store.put_answer(SETTLED.format(number), "yes", now)
        return None
    lease = None
    held = state.lease
    if held is not None and not held.released:
        lease = Lease(held.lane, held.at + timedelta(hours=hours))
    return ClosedView(number, state.pr, lease)


def closed_merged(
    forge: Forge,
    store: SnapshotStore,
    *,
    account: str,
    lease_hours: float,
    vanished: bool,
    now: datetime,
) -> tuple[ClosedView, ...]:
    """The closed issues still labelled working whose PR merged (see the module's doc)."""
    etag, numbers, due = _kept(store)
    if not (due or vanished):
        return ()
    if not due:  # kept first: a read that fails is made again next tick
        store.keep(LIST_KEY, json.dumps({"etag": etag, "numbers": list(numbers), "due": True}))
    page = forge.list_closed_issues(Status.WORKING.value, etag)
    if not page.not_modified:
        numbers = tuple(sorted(issue.number for issue in page.issues))
    views: list[ClosedView] = []
    for number in numbers:
        if store.answer(SETTLED.format(number), now) == "yes":
            continue
        view = _view(forge, store, number, account=account, now=now, hours=lease_hours)
        if view is not None:
            views.append(view)
    # Due again while a merged one waits for its close-out (a job may still be finishing it).
    kept = {"etag": page.etag, "numbers": list(numbers), "due": bool(views)}
    store.keep(LIST_KEY, json.dumps(kept))
    return tuple(views)
