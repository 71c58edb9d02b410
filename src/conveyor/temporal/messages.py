"""What the orchestrator, the workflow and the worker's activity pass each other (plain data).

Temporal's history holds only these: which job to run, its progress (the job's own
`job.json`, heartbeated) and how it ended. Never the issue's state: the forge keeps that,
and every attempt of a job reads it again.
"""

from __future__ import annotations

from dataclasses import dataclass

WORKFLOW = "conveyor-stage-job"
ACTIVITY = "conveyor-run-stage-job"
# Failure types the activity raises; only `JobKilled` and `WorkerShutDown` are retried.
NO_CONFIG = "NoConfigForRepo"
JOB_USAGE = "JobUsageError"
JOB_KILLED = "JobKilled"
WORKER_SHUT_DOWN = "WorkerShutDown"
NOT_RETRIED = (NO_CONFIG, JOB_USAGE)


@dataclass(frozen=True)
class JobInput:
    """One stage job: `conveyor job --issue N --stage S --lane L` for the repository `repo`.

    `lane` is the orchestrator's lane: every worker runs the job on its behalf, so a
    retry on another machine holds the same claim and lease. `attempts` bounds the
    activity's retries of infrastructure failures; `heartbeat_seconds` is how long a
    silent worker is given before its attempt counts as lost.
    """

    repo: str
    issue: int
    stage: str
    lane: str
    resume: bool
    attempts: int
    heartbeat_seconds: float
    stack_on: int | None = None


@dataclass(frozen=True)
class JobProgress:
    """A heartbeat's details: the worker, the job's folder there, and its `job.json` text."""

    worker: str
    job_dir: str | None
    job_json: str | None


@dataclass(frozen=True)
class JobResult:
    """How one job ended: its exit code (0 ended, 1 error/interrupt, 3 not claimable), where it
    ran, which attempt it was, and its final `job.json` text (None when it never claimed)."""

    exit_code: int
    worker: str
    attempt: int
    job_dir: str | None
    job_json: str | None
