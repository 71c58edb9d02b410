"""The activity: run one stage job on this worker, heartbeat its job.json, stop it on cancel.

The job re-reads the issue from the forge and claims it for the orchestrator's lane, so any
attempt on any worker is safe to run: a retry finds the lane's own claim and lease and
resumes the stage. How the job ended is returned, not raised: the orchestrator decides the
next stage from the forge. Only infrastructure failures are raised for Temporal to retry:
the job killed by a signal, this worker shutting down, or a lost worker (a heartbeat time-out).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from temporalio import activity
from temporalio.exceptions import ApplicationError

from conveyor.temporal.forker import ForkServer, JobProcess
from conveyor.temporal.job_process import (
    find_job_dir,
    log_path,
    read_job_json,
    start_job,
    terminate,
)
from conveyor.temporal.messages import (
    ACTIVITY,
    JOB_KILLED,
    JOB_USAGE,
    NO_CONFIG,
    WORKER_SHUT_DOWN,
    JobInput,
    JobProgress,
    JobResult,
)

POLL_S = 0.5
EXIT_USAGE = 2


@dataclass(frozen=True)
class RepoSetup:
    """What this worker has for one repository: its config file and its home folder."""

    config_path: Path
    home: Path


class JobActivity:
    """The activity of a worker serving `repos`; jobs run with `environ`, forked by `forker`
    (else exec'd as `command`)."""

    def __init__(
        self,
        repos: Mapping[str, RepoSetup],
        environ: Mapping[str, str],
        identity: str,
        command: Sequence[str],
        forker: ForkServer | None = None,
    ) -> None:
        self.repos = dict(repos)
        self.environ = dict(environ)
        self.identity = identity
        self.command = tuple(command)
        self.forker = forker

    def job_args(self, job: JobInput, setup: RepoSetup, *, resume: bool) -> list[str]:
        """The job's arguments after `conveyor`."""
        args = ["job", "--config", str(setup.config_path)]
        args += ["--issue", str(job.issue), "--stage", job.stage, "--lane", job.lane]
        if job.stack_on is not None:
            args += ["--stack-on", str(job.stack_on)]
        return [*args, "--resume"] if resume else args

    @activity.defn(name=ACTIVITY)
    async def run(self, job: JobInput) -> JobResult:
        """Run the job to its end; a later attempt runs it with `--resume`."""
        setup = self.repos.get(job.repo)
        if setup is None:
            served = ", ".join(sorted(self.repos)) or "none"
            msg = f"worker {self.identity} has no config for {job.repo} (it serves: {served})"
            raise ApplicationError(msg, type=NO_CONFIG, non_retryable=True)
        attempt = activity.info().attempt
        resume = job.resume or attempt > 1  # every stage resumes on what was rescued
        args = self.job_args(job, setup, resume=resume)
        log = log_path(setup.home / "logs", job.issue, job.stage)
        process = await start_job(self.command, args, self.environ, log, self.forker)
        watch = _Watch(self.identity, setup.home, job, process.pid)
        try:
            code = await _run(process, watch)
        except asyncio.CancelledError:
            details = activity.cancellation_details()
            terminate(process)  # the job saves the issue at its stage and pushes its commits
            code = await _run(process, watch)  # heartbeating on: the save may take a while
            if details is not None and details.worker_shutdown:
                msg = f"worker {self.identity} shut down; the job stopped with exit {code}"
                raise ApplicationError(msg, type=WORKER_SHUT_DOWN) from None
            if details is None or not details.cancel_requested:
                raise  # this attempt timed out or is gone: its outcome no longer counts
            # Asked to stop: the job's interrupted save is how the activity ends.
        job_dir = watch.job_dir()
        if code < 0:
            msg = f"the job was killed by signal {-code} on worker {self.identity}"
            raise ApplicationError(msg, watch.progress(), type=JOB_KILLED)
        if code == EXIT_USAGE:
            msg = f"`conveyor job` refused its arguments on worker {self.identity} (exit 2)"
            raise ApplicationError(msg, type=JOB_USAGE, non_retryable=True)
        return JobResult(
            exit_code=code,
            worker=self.identity,
            attempt=attempt,
            job_dir=None if job_dir is None else str(job_dir),
            job_json=read_job_json(job_dir),
        )


class _Watch:
    """Finds the job's folder once it exists and builds each heartbeat's details."""

    def __init__(self, identity: str, home: Path, job: JobInput, pid: int) -> None:
        self.identity = identity
        self.home = home
        self.job = job
        self.pid = pid
        self._dir: Path | None = None

    def job_dir(self) -> Path | None:
        """The job's folder, once its job.json names our process."""
        if self._dir is None:
            self._dir = find_job_dir(self.home, self.job.issue, self.job.stage, self.pid)
        return self._dir

    def progress(self) -> JobProgress:
        """This moment's details: the worker, the folder, the job.json text."""
        job_dir = self.job_dir()
        return JobProgress(
            worker=self.identity,
            job_dir=None if job_dir is None else str(job_dir),
            job_json=read_job_json(job_dir),
        )


async def _run(process: JobProcess, watch: _Watch) -> int:
    """Heartbeat the job's progress every `POLL_S` until it exits; its exit code."""
    activity.heartbeat(watch.progress())
    while True:
        with contextlib.suppress(TimeoutError):
            return await asyncio.wait_for(asyncio.shield(process.wait()), POLL_S)
        activity.heartbeat(watch.progress())
