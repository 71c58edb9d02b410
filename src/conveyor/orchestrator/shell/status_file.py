"""`status.json`: what the orchestrator does and why anything waits; built purely, saved atomically.

`build_status` is a pure function of the tick's snapshot, decisions, job
records, ledger figures and `now`; `save_status` writes the result with a
temporary file and a rename, so a reader never sees half a file. The
degraded-operation streaks (BB-ESC) are a pure update too: `note_operation`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from conveyor.core.config_hint import config_flag
from conveyor.core.state import FINAL, Stopped
from conveyor.orchestrator.decisions import Decisions
from conveyor.orchestrator.shell.executor import RecordedJob
from conveyor.orchestrator.shell.ledger import CostLine
from conveyor.orchestrator.snapshot import Snapshot

STATUS_FILE = "status.json"
STATUS_VERSION = 1
ALERT_STREAK = 3


def note_operation(
    streaks: Mapping[str, int], operation: str, ok: bool
) -> tuple[dict[str, int], bool]:
    """One best-effort operation's outcome: the streaks after it, and whether to alert.

    A success clears the operation's streak; a failure lengthens it, and the
    third failure in a row (only that one) asks for one error-level record.
    """
    after = dict(streaks)
    if ok:
        after.pop(operation, None)
        return after, False
    after[operation] = after.get(operation, 0) + 1
    return after, after[operation] == ALERT_STREAK


def resume_command(issue: int, config: Path | str | None, runner: str = "conveyor") -> str:
    """The command that resumes a stopped issue: it takes the stop label off through the
    forge client, so it is the same on GitHub and on the embedded forge."""
    named = "" if config is None else config_flag(config, Path.home())
    return f"{runner} resume{named} --issue {issue}"


def _job_entry(job: RecordedJob, now: datetime) -> dict[str, Any]:
    record = job.record
    current = record.sessions[-1] if record.sessions else None
    known = [s.cost_usd for s in record.sessions if s.cost_usd is not None]
    return {
        "issue": record.issue,
        "stage": record.stage,
        "job_id": record.job_id,
        "pid": record.pid,
        "worker": job.worker,
        "session": None if current is None else current.key,
        "model": None if current is None else current.model,
        "context": None if current is None else current.last_context,
        "context_budget": None if current is None else current.budget,
        "cost_usd": round(sum(known), 6),
        "tokens": sum(
            s.usage.input + s.usage.output + s.usage.cache_read + s.usage.cache_write
            for s in record.sessions
        ),
        "unknown_cost_sessions": len(record.sessions) - len(known),
        "running_seconds": max(0, int((now - record.started_at).total_seconds())),
        "heartbeat": record.heartbeat.isoformat(),
    }


def _queue(snapshot: Snapshot, busy: set[int]) -> dict[str, list[int]]:
    queue: dict[str, list[int]] = {}
    for issue in sorted(snapshot.issues, key=lambda i: i.number):
        resting = issue.stopped is not None or issue.waiting is not None
        if not resting and issue.number not in busy and issue.stage not in FINAL:
            queue.setdefault(issue.stage.value, []).append(issue.number)
    return queue


def _stopped(
    snapshot: Snapshot, stops: Mapping[int, Stopped], resume: tuple[Path | None, str]
) -> list[dict[str, Any]]:
    found = []
    for issue in sorted(snapshot.issues, key=lambda i: i.number):
        if issue.stopped is None:
            continue
        stop = stops.get(issue.number)
        found.append({
            "issue": issue.number,
            "control": issue.stopped.value,
            "reason": stop.reason if stop else "",
            "stage": (stop.stage if stop else issue.stage).value,
            "at": stop.at.isoformat() if stop else None,
            "resume": resume_command(issue.number, *resume),
        })  # fmt: skip
    return found


def build_status(
    *,
    now: datetime,
    repo: str,
    snapshot: Snapshot,
    decisions: Decisions,
    jobs: Sequence[RecordedJob],
    stops: Mapping[int, Stopped],
    today: CostLine,
    degraded: Mapping[str, int],
    config_path: Path | None = None,
    runner: str = "conveyor",
    forge_url: str | None = None,
) -> dict[str, Any]:
    """The whole of status.json for one moment; the same inputs give the same document.

    `config_path` and `runner` (how a person starts this `conveyor`) go into each stopped
    issue's resume command, so it runs as shown; `forge_url` (where the forge's pages are)
    and each open issue's PR let `/pipeline` link to the issue and PR pages.
    """
    live = [job for job in jobs if job.alive]
    busy = {job.record.issue for job in live}
    return {
        "version": STATUS_VERSION,
        "written_at": now.isoformat(),
        "repo": repo,
        "forge_url": forge_url,
        "prs": {str(i.number): i.pr for i in snapshot.issues if i.pr is not None},
        "lane": snapshot.lane,
        "cooling_down": snapshot.cooling_down,
        "queue": _queue(snapshot, busy),
        "waiting": [
            {"issue": i.number, "why": i.waiting}
            for i in sorted(snapshot.issues, key=lambda i: i.number)
            if i.waiting is not None and i.stopped is None
        ],
        "jobs": [_job_entry(job, now) for job in live],
        "holds": [
            {"issue": h.issue, "stage": h.stage.value, "reason": h.reason} for h in decisions.holds
        ],
        "pauses": [{"kind": p.kind, "reason": p.reason} for p in decisions.pauses],
        "merge_queue": list(decisions.merge_queue),
        "stopped": _stopped(snapshot, stops, (config_path, runner)),
        "degraded": dict(sorted(degraded.items())),
        "today": {
            "cost_usd": round(today.cost_usd, 6),
            "unknown_cost_sessions": today.unknown,
            "sessions": today.sessions,
            "tokens": today.tokens,
            "launch_charges": today.launch_charge,
        },
    }


def save_status(path: Path, status: Mapping[str, Any]) -> None:
    """Write status.json atomically (a temporary file in the same folder, then a rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(status, indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)


def load_status(path: Path) -> dict[str, Any] | None:
    """status.json, or None when no orchestrator has written one yet."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    if not isinstance(data, dict):
        msg = f"{path}: expected a JSON object"
        raise ValueError(msg)
    return data
