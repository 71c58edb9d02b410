"""The live view's model: status.json, the events read so far and job.json files at `now` (pure)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from conveyor.cli.live.feed import Event, EventState
from conveyor.cli.live.progress import Progress, count_progress
from conveyor.core.state import Stage
from conveyor.orchestrator.shell.executor import RecordedJob

# At most; the panel shows as many of the newest as its terminal's rows leave room for.
RECENT_SHOWN = 20
STALE_SECONDS = 120
_ORDER = {stage.value: index for index, stage in enumerate(Stage)}


@dataclass(frozen=True, slots=True)
class JobRow:
    """A running stage job; `context` is None until job.json records the session."""

    issue: int
    stage: str
    session: str | None
    context: int | None
    context_budget: int | None
    tokens: int
    cost_usd: float
    unknown_cost: int
    running_seconds: int
    worker: str | None = None


@dataclass(frozen=True, slots=True)
class Held:
    """An issue that waits, at which stage, and why."""

    issue: int
    stage: str
    reason: str


@dataclass(frozen=True, slots=True)
class StopRow:
    """A stopped issue: its control, where and why it stopped, and how to resume it."""

    issue: int
    control: str
    stage: str
    reason: str
    resume: str


@dataclass(frozen=True, slots=True)
class Spending:
    """Today's spending from the ledger, and the daily budget when one is set."""

    cost_usd: float
    unknown_sessions: int
    tokens: int
    sessions: int
    per_day: float | None


@dataclass(frozen=True, slots=True)
class View:
    """Everything the live view shows at one moment."""

    repo: str
    lane: str
    status_age: int | None
    stale: bool
    problem: str | None
    cooling_down: bool
    queue: tuple[tuple[str, tuple[int, ...]], ...]
    merge_queue: tuple[int, ...]
    holds: tuple[Held, ...]
    pauses: tuple[str, ...]
    stopped: tuple[StopRow, ...]
    degraded: tuple[tuple[str, int], ...]
    jobs: tuple[JobRow, ...]
    recent: tuple[Event, ...]
    today: Spending | None
    progress: Progress


def _job_row(job: RecordedJob, session: str | None, now: datetime) -> JobRow:
    record = job.record
    shown = session or (record.sessions[-1].key if record.sessions else None)
    recorded = next((s for s in record.sessions if s.key == shown), None)
    known = [s.cost_usd for s in record.sessions if s.cost_usd is not None]
    tokens = sum(
        s.usage.input + s.usage.output + s.usage.cache_read + s.usage.cache_write
        for s in record.sessions
    )
    return JobRow(
        issue=record.issue,
        stage=record.stage,
        session=shown,
        context=None if recorded is None else recorded.last_context,
        context_budget=None if recorded is None or not recorded.budget else recorded.budget,
        tokens=tokens,
        cost_usd=sum(known),
        unknown_cost=len(record.sessions) - len(known),
        running_seconds=max(0, int((now - record.started_at).total_seconds())),
    )


def _field(status: Mapping[str, Any], key: str, kind: type[Any]) -> Any:
    value = status.get(key) or kind()
    if not isinstance(value, kind):
        msg = f"{key}: expected a {'table' if kind is dict else 'list'}, got {value!r}"
        raise TypeError(msg)
    return value


def _queue(status: Mapping[str, Any]) -> tuple[tuple[str, tuple[int, ...]], ...]:
    queue = _field(status, "queue", dict)
    stages = sorted(queue, key=lambda s: (_ORDER.get(s, len(_ORDER)), s))
    return tuple((s, tuple(int(n) for n in queue[s])) for s in stages if queue[s])


def _holds(status: Mapping[str, Any]) -> tuple[Held, ...]:
    waiting = [
        Held(int(w["issue"]), "waiting", str(w.get("why") or ""))
        for w in _field(status, "waiting", list)
    ]
    held = [
        Held(int(h["issue"]), str(h.get("stage") or ""), str(h.get("reason") or ""))
        for h in _field(status, "holds", list)
    ]
    # An issue held for the reason it waits for (a visitor's: untrusted) is said once.
    said = {(h.issue, h.reason) for h in held}
    waiting = [w for w in waiting if (w.issue, w.reason) not in said]
    return tuple(sorted([*held, *waiting], key=lambda h: h.issue))


def _stops(status: Mapping[str, Any]) -> tuple[StopRow, ...]:
    return tuple(
        StopRow(
            issue=int(s["issue"]),
            control=str(s.get("control") or "?"),
            stage=str(s.get("stage") or ""),
            reason=str(s.get("reason") or ""),
            resume=str(s.get("resume") or ""),
        )
        for s in _field(status, "stopped", list)
    )


def _today(status: Mapping[str, Any], per_day: float | None) -> Spending | None:
    today = status.get("today")
    if not isinstance(today, Mapping):
        return None
    return Spending(
        cost_usd=float(today.get("cost_usd") or 0),
        unknown_sessions=int(today.get("unknown_cost_sessions") or 0),
        tokens=int(today.get("tokens") or 0),
        sessions=int(today.get("sessions") or 0),
        per_day=per_day,
    )


def _remote_rows(status: Mapping[str, Any]) -> tuple[JobRow, ...]:
    """The jobs status.json shows on remote workers (their job.json is on those machines)."""
    rows = []
    for job in _field(status, "jobs", list):
        if not isinstance(job, Mapping) or not job.get("worker"):
            continue
        rows.append(
            JobRow(
                issue=int(job["issue"]),
                stage=str(job["stage"]),
                session=job.get("session"),
                context=job.get("context"),
                context_budget=job.get("context_budget") or None,
                tokens=int(job.get("tokens") or 0),
                cost_usd=float(job.get("cost_usd") or 0.0),
                unknown_cost=int(job.get("unknown_cost_sessions") or 0),
                running_seconds=int(job.get("running_seconds") or 0),
                worker=str(job["worker"]),
            )
        )
    return tuple(rows)


def build_view(
    status: Mapping[str, Any] | None,
    events: EventState,
    jobs: Sequence[RecordedJob],
    now: datetime,
    *,
    money_per_day: float | None = None,
    status_problem: str | None = None,
    repo: str = "?",
) -> View:
    """The view at `now`; a status.json of an unexpected shape becomes `problem`, not a crash."""
    seen: Mapping[str, Any] = status or {}
    problem = status_problem
    try:
        parts = (_queue(seen), _holds(seen), _stops(seen), _today(seen, money_per_day))
        pauses = tuple(f"{p['kind']}: {p.get('reason', '')}" for p in _field(seen, "pauses", list))
        degraded = tuple((str(k), int(v)) for k, v in _field(seen, "degraded", dict).items())
        merging = tuple(int(n) for n in _field(seen, "merge_queue", list))
        remote = _remote_rows(seen)
    except (LookupError, TypeError, ValueError, AttributeError) as exc:
        problem = problem or f"status.json has an unexpected shape: {exc}"
        parts, pauses, degraded, merging, remote = ((), (), (), None), (), (), (), ()
    queue, holds, stopped, today = parts
    written = seen.get("written_at")
    age = None
    if isinstance(written, str):
        try:
            age = max(0, int((now - datetime.fromisoformat(written)).total_seconds()))
        except (ValueError, TypeError):
            problem = problem or f"status.json: written_at {written!r} is not a time"
    rows = tuple(
        _job_row(job, events.open_sessions.get(job.record.job_id), now) for job in jobs if job.alive
    )
    progress = count_progress(
        named=events.issues,
        finished=events.finished,
        running=[row.issue for row in (*rows, *remote)],
        stopped=[stop.issue for stop in stopped],
        queued=[*(n for _, numbers in queue for n in numbers), *merging, *(h.issue for h in holds)],
    )
    return View(
        repo=str(seen.get("repo") or repo),
        lane=str(seen.get("lane") or "?"),
        status_age=age,
        stale=age is not None and age > STALE_SECONDS,
        problem=problem,
        cooling_down=bool(seen.get("cooling_down")),
        queue=queue,
        merge_queue=merging,
        holds=holds,
        pauses=pauses,
        stopped=stopped,
        degraded=degraded,
        jobs=rows + remote,
        recent=events.recent[-RECENT_SHOWN:],
        today=today,
        progress=progress,
    )
