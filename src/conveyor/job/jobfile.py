"""`job.json`: what a stage job is doing, rewritten atomically (temp file + rename)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

JOB_FILE = "job.json"
SCHEMA_VERSION = 1
RUNNING = "running"
Outcome = Literal[
    "saved", "stopped", "asked", "split", "merged", "released", "interrupted", "error"
]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class UsageRecord(_Model):
    """Tokens by kind."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0


class ToolFailureRecord(_Model):
    """The tool that failed last in a session, its error, and how many of its calls in a row
    failed (WD-8: a streak counts one tool; a different tool or a call that did not fail
    in between starts it again)."""

    tool: str
    error: str
    streak: int


class SessionRecord(_Model):
    """One session launch as job.json records it (JOB-8); `cost_usd` None means unknown.

    A session is recorded with status `running` when it starts and kept current while it
    runs (usage, contexts, `tool_failure`); its end replaces that record under the same key.
    `rate_limit_reset` is when the provider's usage limit that ended it lifts (BB-PAUSE-7);
    `infra` names the infrastructure failure it ended on (`core.agent_failure.InfraKind`),
    `error` says what the CLI reported and `ended_at` when it ended.
    """

    key: str
    backend: str
    model: str
    status: str
    usage: UsageRecord = UsageRecord()
    cost_usd: float | None = None
    peak_context: int = 0
    last_context: int = 0
    budget: int = 0
    last_tool_failure: str | None = None
    tool_failure: ToolFailureRecord | None = None
    rate_limit_reset: datetime | None = None
    infra: str | None = None
    error: str | None = None
    ended_at: datetime | None = None


class Finished(_Model):
    """How and when the job ended."""

    outcome: Outcome
    at: datetime


class JobRecord(_Model):
    """The whole of job.json."""

    schema_version: int = SCHEMA_VERSION
    issue: int
    stage: str
    role: str
    lane: str
    job_id: str
    pid: int
    process_start: int | None
    started_at: datetime
    heartbeat: datetime
    sessions: list[SessionRecord] = []
    lost_changes: list[str] = []
    # The instruction files the job's sessions were given, as on the base (job/instructions.py).
    instructions: list[str] = []
    finished: Finished | None = None


def process_start_ticks(pid: int) -> int | None:
    """Field 22 of `/proc/<pid>/stat` (start time in clock ticks), or None off Linux.

    With the pid it tells a live job from a new process that reused the pid.
    """
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) is in parentheses and may contain spaces.
    fields = text.rsplit(")", 1)[-1].split()
    return int(fields[19]) if len(fields) > 19 else None


class JobFile:
    """The job's record; every change rewrites job.json atomically (safe across threads)."""

    def __init__(self, path: Path, record: JobRecord, now: Callable[[], datetime]) -> None:
        self.path = path
        self._record = record
        self._now = now
        self._lock = threading.Lock()
        self._write()

    @property
    def record(self) -> JobRecord:
        """A copy of the current record."""
        with self._lock:
            return self._record.model_copy(deep=True)

    def heartbeat(self) -> None:
        """Record that the job is alive now."""
        self._update(heartbeat=self._now())

    def record_session(self, session: SessionRecord) -> None:
        """Add a session, or replace the one with the same key."""
        with self._lock:
            kept = [s for s in self._record.sessions if s.key != session.key]
            self._record.sessions = [*kept, session]
            self._record.heartbeat = self._now()
            self._write()

    def set_lost_changes(self, paths: list[str]) -> None:
        """Record paths whose changes the job could not keep."""
        self._update(lost_changes=sorted(set(paths)))

    def set_instructions(self, paths: list[str]) -> None:
        """Record the instruction files the job applied (paths on the base branch)."""
        self._update(instructions=list(paths))

    def finish(self, outcome: Outcome) -> None:
        """Record how the job ended."""
        now = self._now()
        self._update(finished=Finished(outcome=outcome, at=now), heartbeat=now)

    def _update(self, **changes: object) -> None:
        with self._lock:
            for name, value in changes.items():
                setattr(self._record, name, value)
            self._write()

    def _write(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        tmp.write_text(self._record.model_dump_json(indent=2) + "\n", encoding="utf-8")
        tmp.replace(self.path)


def load_job_file(path: Path) -> JobRecord:
    """Read and validate a job.json."""
    return JobRecord.model_validate_json(path.read_text(encoding="utf-8"))
