"""One tick: build the snapshot, run the watchdog and the scheduler, carry out their decisions.

The rules are pure (`plan`); everything with an effect is here and in
`orchestrator/shell/`. Every decision is one line in `orchestrator.log`
(a hold when it is new or its reason changed); `watchdog.json` keeps the
watchdog's memory and `status.json` is rewritten at the end of every tick.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Protocol

from conveyor.core.config import Config
from conveyor.core.state import Stage, Stopped
from conveyor.forge.contact import cause
from conveyor.forge.errors import ForgeError
from conveyor.forge.protocol import Forge
from conveyor.job.entry import shown_command
from conveyor.ops.forge.context import OpContext
from conveyor.orchestrator.people import PullView
from conveyor.orchestrator.plan import Plan, plan
from conveyor.orchestrator.shell.carry_out import Effects, carry_out
from conveyor.orchestrator.shell.closed_sweep import ClosedFound, closed_sweep
from conveyor.orchestrator.shell.executor import (
    Executor,
    JobHandle,
    RecordedJob,
    RemoteJobs,
    read_jobs,
)
from conveyor.orchestrator.shell.gather import gather
from conveyor.orchestrator.shell.handed_sweep import Pulls, handed_views, shared_pulls
from conveyor.orchestrator.shell.ledger import LEDGER_FILE, CostLine, LedgerDb
from conveyor.orchestrator.shell.people_poll import people_pulls
from conveyor.orchestrator.shell.snapshot_cache import ForgeSnapshot, build_snapshot
from conveyor.orchestrator.shell.snapshot_store import SnapshotStore
from conveyor.orchestrator.shell.status_file import (
    STATUS_FILE,
    build_status,
    note_operation,
    save_status,
)
from conveyor.orchestrator.shell.tick_files import (
    WATCHDOG_FILE,
    end_line,
    load_memory,
    save_memory,
)
from conveyor.orchestrator.snapshot import HandedView, Snapshot


class TickLog(Protocol):
    """Where a tick's lines go (`OrchestratorLog` is one)."""

    def write(self, now: datetime, line: str) -> None:
        """One line, stamped with `now`."""
        ...


@dataclass
class Orchestrator:
    """What lives from one tick to the next in one orchestrator process."""

    config: Config
    home: Path
    lane: str
    forge: Forge
    store: SnapshotStore
    executor: Executor
    environ: Mapping[str, str]
    log: TickLog
    handles: dict[int, JobHandle] = field(default_factory=dict)
    cooling_down: bool = False
    cooling_reason: str = "interrupted: start nothing new"
    money_paused: bool = False
    degraded: dict[str, int] = field(default_factory=dict)
    said_holds: dict[int, str] = field(default_factory=dict)
    said_pauses: frozenset[str] = frozenset()
    ci_reported: set[str] = field(default_factory=set)
    feedback_prs: set[int] = field(default_factory=set)
    config_path: Path | None = None  # named in the status's resume commands


@dataclass(frozen=True, slots=True)
class TickResult:
    """What one tick did: the jobs it started, how many run now, and whether all was idle
    (nothing started or resumed, no job running, no CI wait pending); `poll_failed` when
    the forge could not be read, so the tick did nothing, and `poll_error` its cause as a
    person reads it (`forge/contact.py`), which the caller logs with what it does next."""

    started: tuple[JobHandle, ...]
    live: int
    idle: bool
    plan: Plan | None = None
    snapshot: Snapshot | None = None
    poll_failed: bool = False
    poll_error: str = ""


def all_jobs(orc: Orchestrator) -> list[RecordedJob]:
    """This home's `jobs/*/job.json`, and the remote jobs of an executor that has them."""
    local = read_jobs(orc.home)
    if not isinstance(orc.executor, RemoteJobs):
        return local
    return sorted([*local, *orc.executor.remote_jobs()], key=lambda job: job.record.started_at)


def _forget_ended(orc: Orchestrator, now: datetime) -> None:
    for issue, handle in list(orc.handles.items()):
        if not orc.executor.alive(handle):
            del orc.handles[issue]
            orc.log.write(now, end_line(orc.home, issue, handle, orc.executor))


def _adopt(orc: Orchestrator, recorded: list[RecordedJob], now: datetime) -> None:
    """Take on live jobs of this lane another (earlier) orchestrator started."""
    if isinstance(orc.executor, RemoteJobs):  # its jobs may run before any job.json is heard
        for issue, remote in orc.executor.running().items():
            if issue not in orc.handles:
                orc.handles[issue] = remote
                orc.log.write(now, f"adopted #{issue} {remote.stage.value} (a running workflow)")
    for job in recorded:
        record = job.record
        if not job.alive or record.lane != orc.lane:
            continue
        handle = orc.handles.get(record.issue)
        if handle is not None and (handle.pid == record.pid or job.worker is not None):
            continue  # a remote job's handle is the executor's, whatever pid its worker gave
        orc.handles[record.issue] = JobHandle(
            record.issue, Stage(record.stage), record.pid, record.process_start,
            record.started_at, job.job_dir,
        )  # fmt: skip
        orc.log.write(now, f"adopted #{record.issue} {record.stage} pid {record.pid}")


def _say_holds(orc: Orchestrator, chosen: Plan, now: datetime) -> None:
    """Holds and pauses go to the log when new or changed, so an idle loop stays quiet."""
    said: dict[int, str] = {}
    for held in chosen.holds():
        line = f"hold #{held.issue} {held.stage.value}: {held.reason}"
        said[held.issue] = line
        if orc.said_holds.get(held.issue) != line:
            orc.log.write(now, line)
    pauses = frozenset(f"pause {p.kind}: {p.reason}" for p in chosen.schedule.pauses)
    for line in sorted(pauses - orc.said_pauses):
        orc.log.write(now, line)
    orc.said_holds, orc.said_pauses = said, pauses


def _stops(fresh: ForgeSnapshot) -> dict[int, Stopped]:
    return {
        e.issue.number: e.state.stopped
        for e in fresh.issues
        if e.state is not None and e.state.stopped is not None
    }


def _write_status(
    orc: Orchestrator, now: datetime, *, snapshot: Snapshot, chosen: Plan, fresh: ForgeSnapshot,
    today: CostLine,
) -> None:  # fmt: skip
    decisions = replace(chosen.schedule, holds=chosen.holds())
    status = build_status(
        now=now,
        repo=orc.config.repo,
        snapshot=snapshot,
        decisions=decisions,
        jobs=all_jobs(orc),
        stops=_stops(fresh),
        today=today,
        degraded=orc.degraded,
        config_path=orc.config_path,
        runner=shown_command(),
        forge_url=orc.config.forge.web_url,
    )
    try:
        save_status(orc.home / STATUS_FILE, status)
    except OSError as error:
        orc.log.write(now, f"error op=write-status: {error}")


def _closed(
    orc: Orchestrator, fresh: ForgeSnapshot, was_open: frozenset[int], now: datetime
) -> ClosedFound:
    """The merged, closed issues whose close-out did not finish, and the closed approved ones
    a person acted on (a failed read: next tick)."""
    vanished = not fresh.not_modified and bool(was_open - {e.issue.number for e in fresh.issues})
    try:
        return closed_sweep(
            orc.forge, orc.store, account=orc.config.account.login,
            lease_hours=orc.config.limits.lease_hours, vanished=vanished, now=now,
        )  # fmt: skip
    except ForgeError as error:
        orc.log.write(now, f"closed-issue sweep failed (next tick tries again): {error}")
        return ClosedFound()


def _handed(
    orc: Orchestrator, fresh: ForgeSnapshot, closed: ClosedFound, pulls: Pulls, now: datetime
) -> tuple[HandedView, ...]:
    """The approved issues, open and closed, with their PRs (a failed read: next tick)."""
    try:
        opened = handed_views(
            orc.forge, orc.store, fresh.issues, lease_hours=orc.config.limits.lease_hours,
            now=now, pulls=pulls,
        )  # fmt: skip
    except ForgeError as error:
        orc.log.write(now, f"handed-over PRs not read (next tick tries again): {error}")
        opened = ()
    return (*opened, *closed.handed)


def tick(orc: Orchestrator, now: datetime) -> TickResult:
    """One pass: snapshot, watchdog, escalation, scheduler; decisions carried out and logged."""
    _forget_ended(orc, now)
    was_open = frozenset(orc.store.entries())
    # The jobs are read before the forge: a job that ended since saved its issue first, so
    # the forge read after shows where it left the issue, never the stage it just did.
    recorded = all_jobs(orc)
    try:
        fresh = build_snapshot(orc.forge, orc.store, orc.config, now)
    except ForgeError as error:
        orc.degraded, alert = note_operation(orc.degraded, "poll", ok=False)
        if alert:
            orc.log.write(now, "error op=poll: failed 3 times in a row")
        why = cause(error, orc.config)
        return TickResult((), len(orc.handles), idle=False, poll_failed=True, poll_error=why)
    closed = _closed(orc, fresh, was_open, now)
    _adopt(orc, recorded, now)
    with LedgerDb(orc.home / LEDGER_FILE, readonly=True) as ledger:
        figures, today = ledger.figures(now), ledger.spent_today(now)
    snapshot = gather(
        forge=orc.forge, store=orc.store, config=orc.config, lane=orc.lane, fresh=fresh,
        recorded=recorded, live_handles=orc.handles, ledger=figures, now=now,
        money_paused=orc.money_paused, cooling_down=orc.cooling_down,
        cache=orc.home / "cache.git",
    )  # fmt: skip
    pulls = shared_pulls(orc.forge, orc.store, fresh.issues, reviews=orc.config.pr_reviews.enabled)
    snapshot = replace(
        snapshot, closed_merged=closed.merged, handed=_handed(orc, fresh, closed, pulls, now),
        cooling_reason=orc.cooling_reason,
    )  # fmt: skip
    if orc.ci_reported or orc.feedback_prs:
        reported, feedback = frozenset(orc.ci_reported), frozenset(orc.feedback_prs)
        snapshot = replace(snapshot, ci_reported=reported, feedback_prs=feedback)
        orc.ci_reported.clear()
        orc.feedback_prs.clear()
    memory, problem = load_memory(orc.home / WATCHDOG_FILE)
    if problem is not None:
        orc.log.write(now, problem)
    people = _people(orc, fresh, pulls, now)
    chosen = plan(snapshot, orc.config, now, memory, people)
    newest = {job.record.issue: job for job in recorded}
    effects = Effects(
        orc.config, orc.executor, _ops(orc), orc.home, orc.environ,
        lambda line: orc.log.write(now, line), newest, orc.handles, dict(orc.degraded),
    )  # fmt: skip
    effects.note("poll", ok=True)
    before = dict(orc.handles)
    for decision in (
        *chosen.watchdog, *chosen.escalations, *chosen.handed_decisions(),
        *chosen.schedule.starts, *chosen.closeouts, *chosen.reviews.starts,
    ):  # fmt: skip
        carry_out(effects, decision, now)
    _say_holds(orc, chosen, now)
    orc.degraded = effects.degraded
    save_memory(orc.home / WATCHDOG_FILE, chosen.memory)
    orc.money_paused = chosen.schedule.money_paused
    _write_status(orc, now, snapshot=snapshot, chosen=chosen, fresh=fresh, today=today)
    started = tuple(h for n, h in orc.handles.items() if before.get(n) is not h)
    acted = bool(chosen.watchdog or started or chosen.closeouts or chosen.handed_decisions())
    live = len(orc.handles)
    waits = any(i.ci_wait is not None and i.stopped is None for i in snapshot.issues)
    # A job another process started (or one whose handle this process lost)
    # still counts: idle means no job.json of this home is unfinished and alive.
    running = any(job.alive and job.record.finished is None for job in recorded)
    idle = not acted and live == 0 and not waits and not running
    return TickResult(started, live, idle=idle, plan=chosen, snapshot=snapshot)


def _people(
    orc: Orchestrator, fresh: ForgeSnapshot, pulls: Pulls, now: datetime
) -> tuple[PullView, ...]:
    """People's PRs for the review rule; a failed read is logged and reviews wait a tick."""
    try:
        return people_pulls(
            orc.forge, orc.store, orc.config, fresh.trust, orc.home, now=now, pulls=pulls
        )
    except ForgeError as error:
        orc.log.write(now, f"PR poll failed (reviews wait for the next tick): {error}")
        return ()


def _ops(orc: Orchestrator) -> OpContext:
    return OpContext(orc.forge, orc.config, run_id=f"orchestrator-{orc.lane}")
