"""`conveyor run --dry-run`: the tick's reading and its rules, with nothing carried out.

The forge is read exactly as a tick reads it (through the snapshot cache), the jobs'
`job.json` files, the ledger and the watchdog's memory too; the plan the pure rules make is
returned instead of carried out. Nothing is written to the forge: no claim, label, comment
or close-out. Only local caches a tick keeps anyway (the snapshot cache, the lane's name)
may be written; `orchestrator.log`, `status.json` and `watchdog.json` are left as they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path

from conveyor.core.config import Config
from conveyor.core.state import IssueState
from conveyor.forge.contact import cause
from conveyor.forge.errors import ForgeError
from conveyor.forge.protocol import Forge
from conveyor.orchestrator.plan import Plan, plan
from conveyor.orchestrator.shell.closed_sweep import ClosedFound, closed_sweep
from conveyor.orchestrator.shell.executor import read_jobs
from conveyor.orchestrator.shell.gather import gather
from conveyor.orchestrator.shell.handed_sweep import handed_views
from conveyor.orchestrator.shell.ledger import LEDGER_FILE, LedgerDb
from conveyor.orchestrator.shell.snapshot_cache import build_snapshot
from conveyor.orchestrator.shell.snapshot_store import SnapshotStore
from conveyor.orchestrator.shell.tick_files import WATCHDOG_FILE, load_memory
from conveyor.orchestrator.snapshot import Snapshot


@dataclass(frozen=True)
class Preview:
    """What a tick would decide now, with what the budgets it charges have used so far.

    `states` are the open issues' saved states (an issue the pipeline does not hold yet has
    none); `spent_today` is today's money from the ledger.
    """

    plan: Plan
    snapshot: Snapshot
    states: Mapping[int, IssueState] = field(default_factory=dict)
    spent_today: float = 0.0
    notes: tuple[str, ...] = ()


def preview(
    *, forge: Forge, store: SnapshotStore, config: Config, home: Path, lane: str, now: datetime
) -> Preview | str:
    """The plan of a tick at `now`, or why the forge could not be read (its cause, one line)."""
    recorded = read_jobs(home)
    try:
        fresh = build_snapshot(forge, store, config, now)
    except ForgeError as error:
        return cause(error, config)
    notes: list[str] = []
    hours = config.limits.lease_hours
    try:
        closed = closed_sweep(
            forge, store, account=config.account.login, lease_hours=hours, vanished=False,
            now=now,
        )  # fmt: skip
        handed = (
            *handed_views(forge, store, fresh.issues, lease_hours=hours, now=now),
            *closed.handed,
        )
    except ForgeError as error:
        closed, handed = ClosedFound(), ()
        notes = [f"closed-issue sweep not read: {cause(error, config)}"]
    with LedgerDb(home / LEDGER_FILE, readonly=True) as ledger:
        figures, today = ledger.figures(now), ledger.spent_today(now)
    snapshot = gather(
        forge=forge, store=store, config=config, lane=lane, fresh=fresh, recorded=recorded,
        live_handles={}, ledger=figures, now=now, money_paused=False, cooling_down=False,
        cache=home / "cache.git",
    )  # fmt: skip
    snapshot = replace(snapshot, closed_merged=closed.merged, handed=handed)
    memory, problem = load_memory(home / WATCHDOG_FILE)
    if problem is not None:
        notes.append(problem)
    states = {e.issue.number: e.state for e in fresh.issues if e.state is not None}
    chosen = plan(snapshot, config, now, memory)
    return Preview(chosen, snapshot, states, today.cost_usd, tuple(notes))
