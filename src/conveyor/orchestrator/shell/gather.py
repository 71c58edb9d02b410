"""Gather one tick's `Snapshot`: the cached forge issues, the job records, the ledger, pauses.

The forge part comes from J's snapshot cache (an idle tick is one 304);
this module adds what the views leave to the tick: CI waits, re-review
lenses, the `after` targets closed without completing (asked once per ten
minutes, cached beside the other answers), the followers whose prerequisite's branch
lacks another prerequisite's merge (STK-9), the provider's usage-limit hold
from the jobs' recorded resets, and the jobs this orchestrator
started whose `job.json` is not written yet (a job writes it only after
its claim), so no second job starts for their issue in that gap.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path

from conveyor.core.agent_failure import HOLD_MINUTES, InfraKind
from conveyor.core.config import Config
from conveyor.forge.protocol import Forge
from conveyor.job.jobfile import RUNNING
from conveyor.job.roles import role_of
from conveyor.orchestrator.shell.executor import JobHandle, RecordedJob
from conveyor.orchestrator.shell.issue_views import issue_view, job_view, newest_jobs
from conveyor.orchestrator.shell.snapshot_cache import ForgeSnapshot
from conveyor.orchestrator.shell.snapshot_store import CachedIssue, SnapshotStore
from conveyor.orchestrator.shell.stack_facts import stack_behind
from conveyor.orchestrator.snapshot import (
    AgentEnd,
    CiWait,
    IssueView,
    JobRole,
    JobView,
    Ledger,
    Snapshot,
)

CLOSED_KEY = "closed-unmerged:{}"
# A provider's usage-limit hold never lasts longer than this (BB-PAUSE-7).
USAGE_LIMIT_CAP = timedelta(hours=8)
USAGE_LIMIT_BACKOFF = timedelta(minutes=HOLD_MINUTES[InfraKind.USAGE_LIMIT])


def agent_ends(recorded: Iterable[RecordedJob]) -> tuple[AgentEnd, ...]:
    """The newest ended session of each agent CLI, with the infrastructure failure it met."""
    newest: dict[str, AgentEnd] = {}
    for job in recorded:
        record = job.record
        ended = record.finished.at if record.finished is not None else record.heartbeat
        for session in record.sessions:
            if session.status == RUNNING:
                continue
            at = session.ended_at or ended
            kept = newest.get(session.backend)
            if kept is not None and kept.at >= at:
                continue
            infra = _infra(session.infra)
            error = session.error if infra is not None else None
            newest[session.backend] = AgentEnd(session.backend, at, infra, error)
    return tuple(newest[name] for name in sorted(newest))


def _infra(value: str | None) -> InfraKind | None:
    """The recorded kind, or None for none (or one this version does not know)."""
    try:
        return None if value is None else InfraKind(value)
    except ValueError:
        return None


def _view(entry: CachedIssue, forge: ForgeSnapshot, now: datetime, config: Config) -> IssueView:
    """J's issue view plus the CI wait and the re-review's lens count from the state."""
    open_numbers = {e.issue.number for e in forge.issues}
    view = issue_view(entry, forge.trust, now, config.limits.lease_hours, open_numbers)
    state = entry.state
    if state is None:
        return view
    wait = None
    if state.ci_wait is not None:
        got = state.ci_wait
        wait = CiWait(got.sha, got.since, got.empty_reads, got.last_read)
    lenses = len(state.rereview.lenses) if state.rereview is not None else 0
    return replace(view, ci_wait=wait, rereview_lenses=lenses)


def closed_unmerged(
    forge: Forge, store: SnapshotStore, issues: Iterable[IssueView], now: datetime
) -> frozenset[int]:
    """The `after` and stacking targets that are closed but were not completed (asked at most
    every 10 min)."""
    open_numbers = {issue.number for issue in issues}
    targets = {n for i in issues for n in (*i.afters, i.after, i.stacked_on) if n is not None}
    # A target seen open again was reopened: whatever it was closed as no longer holds.
    stale = {k for k in store.answer_keys(CLOSED_KEY.format("")) if _number(k) in open_numbers}
    if stale:
        store.drop_answers(stale)
    targets -= open_numbers
    found: set[int] = set()
    for number in sorted(targets):
        key = CLOSED_KEY.format(number)
        known = store.answer(key, now)
        if known is None:
            issue = forge.get_issue(number)
            done = issue.state == "open" or issue.state_reason in (None, "completed")
            known = "no" if done else "yes"
            store.put_answer(key, known, now)
        if known == "yes":
            found.add(number)
    return frozenset(found)


def _number(key: str) -> int | None:
    tail = key.rpartition(":")[2]
    return int(tail) if tail.isdigit() else None


def usage_limit_until(recorded: Iterable[RecordedJob], now: datetime) -> datetime | None:
    """When the provider's usage limit lifts: the latest reset still ahead (BB-PAUSE-7).

    A session that ended rate-limited records its reset in job.json; each
    reset is capped at `USAGE_LIMIT_CAP` after the session ended, so a hold
    never outlasts it however far ahead the provider named. Jobs whose file
    was last written longer than the cap ago cannot hold anything and are skipped.
    """
    found: datetime | None = None
    for job in recorded:
        record = job.record
        ended = record.finished.at if record.finished is not None else record.heartbeat
        if now - ended > USAGE_LIMIT_CAP:
            continue
        for session in record.sessions:
            reset = session.rate_limit_reset
            if reset is None and session.status == "rate_limited":
                # BB-PAUSE-7: no reset named, so the fallback backoff from the limit's hit.
                reset = (session.ended_at or ended) + USAGE_LIMIT_BACKOFF
            if reset is None:
                continue
            until = min(reset, ended + USAGE_LIMIT_CAP, now + USAGE_LIMIT_CAP)
            if until > now and (found is None or until > found):
                found = until
    return found


def _pending_view(handle: JobHandle, now: datetime) -> JobView:
    """A started job without its job.json yet: alive, its heartbeat now."""
    return JobView(
        issue=handle.issue,
        stage=handle.stage,
        role=JobRole(role_of(handle.stage).value),
        started_at=handle.started_at,
        pid=handle.pid,
        alive=True,
        heartbeat=now,
    )


def job_views(
    recorded: Iterable[RecordedJob], live_handles: Mapping[int, JobHandle], now: datetime
) -> tuple[JobView, ...]:
    """One view per issue: its newest job, where a live handle without job.json counts as newest."""
    views = {job.record.issue: job_view(job) for job in newest_jobs(list(recorded))}
    known = {(job.record.pid, job.record.process_start) for job in recorded}
    for issue, handle in live_handles.items():
        if (handle.pid, handle.process_start) in known:
            continue
        kept = views.get(issue)
        if kept is None or not kept.alive:
            views[issue] = _pending_view(handle, now)
    return tuple(views[n] for n in sorted(views))


def gather(
    *,
    forge: Forge,
    store: SnapshotStore,
    config: Config,
    lane: str,
    fresh: ForgeSnapshot,
    recorded: Iterable[RecordedJob],
    live_handles: Mapping[int, JobHandle],
    ledger: Ledger,
    now: datetime,
    money_paused: bool,
    cooling_down: bool,
    cache: Path | None = None,
) -> Snapshot:
    """The snapshot the pure rules read for this tick; `cache` is the repository's bare cache,
    where STK-9's question is answered."""
    issues = tuple(_view(entry, fresh, now, config) for entry in fresh.issues)
    jobs = list(recorded)
    closed = closed_unmerged(forge, store, issues, now)
    behind = (
        frozenset[int]()
        if cache is None
        else stack_behind(forge, store, cache, issues, closed_unmerged=closed, now=now)
    )
    return Snapshot(
        lane=lane,
        issues=issues,
        jobs=job_views(jobs, live_handles, now),
        ledger=ledger,
        usage_limit_until=usage_limit_until(jobs, now),
        agent_ends=agent_ends(jobs),
        closed_unmerged=closed,
        money_paused=money_paused,
        cooling_down=cooling_down,
        stack_behind=behind,
    )
