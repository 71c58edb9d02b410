"""Finished jobs' folders as a Conveyor home holds them, with the CLIs' real streams."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from conveyor.job.jobfile import JOB_FILE, JobRecord, SessionRecord, UsageRecord

STREAMS = Path(__file__).parents[2] / "data" / "agent-streams"
NOW = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)
STARTS = {"implement": "20261204T110000Z", "review": "20261204T113000Z"}


def write_job(repo_home: Path, issue: int, stage: str, session: tuple[str, str, str],
         tail: str = "") -> None:  # fmt: skip
    """A finished job of `issue` whose one session (key, backend, stream file) left the CLI's
    real stream, with `tail` after it."""
    key, backend, stream = session
    job_dir = repo_home / "jobs" / f"issue-{issue}-{stage}-{STARTS[stage]}"
    (job_dir / "sessions" / key).mkdir(parents=True)
    text = (STREAMS / stream).read_text(encoding="utf-8") + tail
    (job_dir / "sessions" / key / "transcript.jsonl").write_text(text, encoding="utf-8")
    cost = None if backend == "codex" else 0.00042
    usage = UsageRecord(input=20, output=24)
    done = SessionRecord(key=key, backend=backend, model="m1", status="succeeded", usage=usage,
                         cost_usd=cost, ended_at=NOW)  # fmt: skip
    record = JobRecord(issue=issue, stage=stage, role="writer", lane="l", job_id=job_dir.name,
                       pid=1, process_start=None, started_at=NOW, heartbeat=NOW,
                       sessions=[done])  # fmt: skip
    (job_dir / JOB_FILE).write_text(record.model_dump_json(), encoding="utf-8")
