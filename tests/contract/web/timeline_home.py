"""A known set of job folders for one issue: two jobs, a session and two command runs."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from conveyor.core.timeline import RUN_SUFFIX, command_record

T0 = datetime(2026, 12, 4, 12, 0, 0, tzinfo=UTC)
# (kind, label, start s, end s) in the order the timeline shows them; the span is 40 s.
EXPECTED = [
    ("job", "triage", 0.0, 10.0),
    ("session", "triage-1", 2.0, 8.0),
    ("job", "checks", 12.0, 40.0),
    ("command", "test", 14.0, 24.0),
    ("command", "lint", 25.0, 27.0),
]


def at(seconds: float) -> datetime:
    """T0 plus `seconds`."""
    return T0 + timedelta(seconds=seconds)


def _job(repo_home: Path, issue: int, stage: str, start: float, end: float) -> Path:
    job_id = f"issue-{issue}-{stage}-{at(start):%Y%m%dT%H%M%SZ}"
    folder = repo_home / "jobs" / job_id
    folder.mkdir(parents=True)
    record = {
        "issue": issue, "stage": stage, "job_id": job_id, "started_at": at(start).isoformat(),
        "heartbeat": at(end).isoformat(),
        "finished": {"outcome": "saved", "at": at(end).isoformat()},
    }  # fmt: skip
    (folder / "job.json").write_text(json.dumps(record))
    return folder


def write_jobs(repo_home: Path, issue: int) -> None:
    """Write EXPECTED's jobs, events and command records under `repo_home`."""
    triage = _job(repo_home, issue, "triage", 0.0, 10.0)
    events = [
        {"ts": at(2.0).isoformat(), "job": triage.name, "kind": "session-started",
         "key": "triage-1"},
        {"ts": at(8.0).isoformat(), "job": triage.name, "kind": "session-ended",
         "key": "triage-1", "status": "replied"},
    ]  # fmt: skip
    run_dir = repo_home / "runs" / f"issue-{issue}"
    run_dir.mkdir(parents=True)
    (run_dir / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    checks = _job(repo_home, issue, "checks", 12.0, 40.0)
    logs = checks / "logs"
    logs.mkdir()
    for name, start, end in (("test", 14.0, 24.0), ("lint", 25.0, 27.0)):
        record = command_record(name, at(start), at(end), "passed")
        (logs / f"{name}{RUN_SUFFIX}").write_text(json.dumps(record))
