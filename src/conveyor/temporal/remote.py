"""What the orchestrator knows of one stage job running on a worker, from Temporal's answers."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from conveyor.core.state import Stage
from conveyor.job.jobfile import JobRecord
from conveyor.orchestrator.shell.executor import RecordedJob
from conveyor.temporal.messages import JobProgress, JobResult

WORKFLOW_PREFIX = "conveyor"


def workflow_id(repo: str, issue: int) -> str:
    """One workflow id per issue: Temporal itself refuses a second job while one runs."""
    return f"{WORKFLOW_PREFIX}:{repo}:issue-{issue}"


def parse_record(text: str | None) -> JobRecord | None:
    """A job.json text as a record, or None when absent or unreadable."""
    if text is None:
        return None
    try:
        return JobRecord.model_validate_json(text)
    except ValueError:
        return None


@dataclass
class RemoteJob:
    """One workflow (one stage job): its ids, whether it runs, and its latest job.json."""

    issue: int
    stage: Stage
    workflow_id: str
    run_id: str | None
    started_at: datetime
    running: bool = True
    worker: str | None = None
    job_dir: str | None = None
    record: JobRecord | None = None
    attempt: int = 1
    exit_code: int | None = None
    ledgered: bool = False

    def heard(self, progress: JobProgress, attempt: int) -> None:
        """Take a heartbeat's details (a newer attempt's job replaces the older one's)."""
        record = parse_record(progress.job_json)
        self.worker = progress.worker
        self.attempt = attempt
        if record is not None or progress.job_dir != self.job_dir:
            self.job_dir, self.record = progress.job_dir, record

    def ended(self, result: JobResult) -> None:
        """Take the activity's result: the job's final job.json and exit code."""
        self.running = False
        self.worker, self.attempt, self.exit_code = result.worker, result.attempt, result.exit_code
        record = parse_record(result.job_json)
        if record is not None:
            self.job_dir, self.record = result.job_dir, record

    def recorded(self) -> RecordedJob | None:
        """The job as the tick's snapshot reads jobs (None until it has written its job.json)."""
        if self.record is None:
            return None
        # While the workflow runs the issue is its job's, even past a finished job.json:
        # a shut-down worker's interrupted job waits for its retry on another worker.
        where = Path(self.job_dir or f"/{self.workflow_id}")
        return RecordedJob(where, self.record, self.running, worker=self.worker)

    def end_note(self) -> str:
        """How it ended, for `orchestrator.log`."""
        where = f" on worker {self.worker}" if self.worker else ""
        code = f" exit {self.exit_code}" if self.exit_code is not None else ""
        tries = f" (attempt {self.attempt})" if self.attempt > 1 else ""
        outcome = "no outcome recorded"
        if self.record is not None and self.record.finished is not None:
            outcome = self.record.finished.outcome
        return f"{where}{code}{tries}: {outcome}"
