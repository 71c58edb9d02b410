"""Where stage jobs run: a small executor interface, and local processes behind it.

A local job is `conveyor job --config C --issue N --stage S --lane L` in its
own session (`setsid`), so it outlives the orchestrator; it is forked from the
orchestrator's already-imported process when that is safe (see
`conveyor.job.fork_start`), else exec'd. A restarted
orchestrator adopts it from its `job.json`. A process is known by its pid
*and* its start time (`/proc/<pid>/stat` field 22), so a pid the kernel gave
to another process is never taken for the job.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Protocol, runtime_checkable

from conveyor.core.state import Stage
from conveyor.job.entry import conveyor_argv
from conveyor.job.fork_start import (
    ForkedChild,
    can_fork,
    fork_job,
    job_start,
    preload,
    preload_sessions,
)
from conveyor.job.jobfile import JOB_FILE, JobRecord, load_job_file, process_start_ticks
from conveyor.job.layout import job_stamp


class _Child(Protocol):
    """A started job: a `subprocess.Popen` or a `ForkedChild`."""

    pid: int

    def poll(self) -> int | None:
        """Its exit code once it has ended, else None."""
        ...

    def wait(self, timeout: float | None = None) -> int:
        """Wait for it to end (raises `subprocess.TimeoutExpired`); its exit code."""
        ...

    def kill(self) -> None:
        """SIGKILL it."""
        ...


@dataclass(frozen=True, slots=True)
class JobHandle:
    """One started (or adopted) job: its issue and stage, its process, and its folder once known."""

    issue: int
    stage: Stage
    pid: int
    process_start: int | None
    started_at: datetime
    job_dir: Path | None = None


class Executor(Protocol):
    """Runs stage jobs; another engine can stand in for local processes."""

    def start(
        self,
        issue: int,
        stage: Stage,
        now: datetime,
        *,
        resume: bool = False,
        stack_on: int | None = None,
    ) -> JobHandle:
        """Start the job of one stage of one issue (on issue `stack_on`'s branch, when given)."""
        ...

    def alive(self, handle: JobHandle) -> bool:
        """Whether the job still runs."""
        ...

    def terminate(self, handle: JobHandle) -> None:
        """Ask the job to stop (it saves its issue at its stage)."""
        ...


@runtime_checkable
class RemoteJobs(Protocol):
    """An executor whose jobs run on other machines: their job.json comes from it, not `jobs/`."""

    def remote_jobs(self) -> list[RecordedJob]:
        """The jobs it knows, as of now."""
        ...

    def end_note(self, handle: JobHandle) -> str:
        """Where and how a job ended (appended to `job ended …`)."""
        ...

    def running(self) -> dict[int, JobHandle]:
        """A handle per issue whose job runs, by issue (an earlier orchestrator's too)."""
        ...


def process_alive(pid: int, process_start: int | None) -> bool:
    """Whether `pid` runs and is the process that started at `process_start`."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    if _zombie(pid):
        return False  # exited; its parent (maybe a non-reaping init) has not reaped it
    return process_start_ticks(pid) == process_start


def _zombie(pid: int) -> bool:
    """Whether `pid` has exited but is still in the process table (state `Z`)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return False
    fields = stat.rpartition(")")[2].split()
    return bool(fields) and fields[0] in ("Z", "X")


@dataclass(frozen=True, slots=True)
class RecordedJob:
    """A job folder's `job.json` and whether its process still runs.

    `worker` names the remote worker a job runs on (its folder is on that machine).
    """

    job_dir: Path
    record: JobRecord
    alive: bool
    worker: str | None = None


def read_jobs(repo_home: Path) -> list[RecordedJob]:
    """Every readable `jobs/*/job.json`, oldest first; unreadable ones are skipped."""
    found: list[RecordedJob] = []
    for path in sorted((repo_home / "jobs").glob(f"*/{JOB_FILE}")):
        try:
            record = load_job_file(path)
        except (OSError, ValueError):
            continue
        live = record.finished is None and process_alive(record.pid, record.process_start)
        found.append(RecordedJob(path.parent, record, live))
    found.sort(key=lambda job: job.record.started_at)
    return found


def adopt(repo_home: Path) -> list[JobHandle]:
    """The jobs still running from an earlier orchestrator, from their `job.json`."""
    return [
        JobHandle(
            issue=job.record.issue,
            stage=Stage(job.record.stage),
            pid=job.record.pid,
            process_start=job.record.process_start,
            started_at=job.record.started_at,
            job_dir=job.job_dir,
        )
        for job in read_jobs(repo_home)
        if job.alive
    ]


class LocalExecutor:
    """Stage jobs as local processes, each in its own session, logging to `logs/`."""

    def __init__(
        self,
        config_path: Path,
        lane: str,
        repo_home: Path,
        environ: Mapping[str, str],
        command: Sequence[str] | None = None,
    ) -> None:
        self.config_path = config_path
        self.lane = lane
        self.repo_home = repo_home
        self.environ = dict(environ)
        self.command = tuple(command if command is not None else conveyor_argv())
        # Fork only `conveyor job` itself (no stand-in command) and only when asked.
        self.fork = command is None and job_start(self.environ) == "fork"
        self._children: dict[int, _Child] = {}

    def argv(
        self, issue: int, stage: Stage, *, resume: bool = False, stack_on: int | None = None
    ) -> list[str]:
        """The command line of one job."""
        return [*self.command, *self._job_args(issue, stage, resume=resume, stack_on=stack_on)]

    def _job_args(
        self, issue: int, stage: Stage, *, resume: bool, stack_on: int | None = None
    ) -> list[str]:
        """The job's arguments after `conveyor`."""
        args = ["job", "--config", str(self.config_path), "--issue", str(issue)]
        args += ["--stage", stage.value, "--lane", self.lane]
        if stack_on is not None:
            args += ["--stack-on", str(stack_on)]
        return [*args, "--resume"] if resume else args

    def start(
        self,
        issue: int,
        stage: Stage,
        now: datetime,
        *,
        resume: bool = False,
        stack_on: int | None = None,
    ) -> JobHandle:
        """Start the job in its own session; its output goes to `logs/issue-N-<stage>-<t>.log`."""
        logs = self.repo_home / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        log = logs / f"issue-{issue}-{stage.value}-{job_stamp(now)}.log"
        child: _Child
        with log.open("ab") as out:
            if self.fork and can_fork():  # a thread in this process makes forking unsafe
                preload()
                args = self._job_args(issue, stage, resume=resume, stack_on=stack_on)
                pid = fork_job(args, self.environ, new_session=True, stdout_fd=out.fileno())
                child = ForkedChild(pid)
                preload_sessions()  # after the fork: the next jobs start with the SDK loaded
            else:
                child = subprocess.Popen(
                    self.argv(issue, stage, resume=resume, stack_on=stack_on),
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    env=self.environ,
                    start_new_session=True,
                )
        self._children[child.pid] = child
        return JobHandle(issue, stage, child.pid, process_start_ticks(child.pid), now)

    def alive(self, handle: JobHandle) -> bool:
        """Whether the job runs (a child of ours is reaped when it has ended)."""
        child = self._children.get(handle.pid)
        if child is not None:
            return child.poll() is None
        return process_alive(handle.pid, handle.process_start)

    def exit_code(self, handle: JobHandle) -> int | None:
        """A started job's exit code once it has ended (None while it runs, or if adopted)."""
        child = self._children.get(handle.pid)
        return None if child is None else child.poll()

    def wait(self, handle: JobHandle, timeout: float | None = None) -> int | None:
        """Wait for a job this executor started; its exit code, or None on timeout."""
        child = self._children.get(handle.pid)
        if child is None:
            return None
        try:
            return child.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def terminate(self, handle: JobHandle) -> None:
        """SIGTERM to the job's process, only while it is still that process."""
        if self.alive(handle):
            try:
                os.kill(handle.pid, signal.SIGTERM)
            except ProcessLookupError:
                return
