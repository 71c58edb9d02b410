"""`conveyor run --executor temporal`: each stage job is a workflow on a task queue, run by workers.

The same seam as local processes (`Executor`): start, alive, terminate; plus the jobs'
progress as `RecordedJob`s built from the activities' heartbeats (their job.json), so the
watchdog, `status.json` and the live view see remote jobs as they see local ones. One
workflow id per issue (`conveyor:<repo>:issue-N`). The orchestrator is synchronous; the
client runs on a private event loop driven only from the calling thread.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from temporalio.client import (
    Client,
    WorkflowExecution,
    WorkflowExecutionStatus,
    WorkflowHandle,
)
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.service import RPCError

from conveyor.core.config import Config
from conveyor.core.state import Stage
from conveyor.job.ledger import save_job_sessions
from conveyor.orchestrator.shell.executor import JobHandle, RecordedJob
from conveyor.temporal.messages import WORKFLOW, JobInput, JobProgress, JobResult
from conveyor.temporal.remote import RemoteJob, workflow_id
from conveyor.temporal.target import TemporalTarget, connect

# `alive` is asked every 0.2 s per job while the loop naps: answers are reused this long.
FRESH_S = 0.25
DEFAULT_HEARTBEAT_S = 30.0
T = TypeVar("T")


class ExecutorError(OSError):
    """Temporal refused or could not be reached; the tick logs it and tries again later."""


class TemporalExecutor:
    """Starts stage jobs as workflows on `target.queue` for one repository and lane."""

    def __init__(
        self,
        target: TemporalTarget,
        config: Config,
        lane: str,
        home: Path,
        environ: Mapping[str, str],
        *,
        heartbeat_seconds: float = DEFAULT_HEARTBEAT_S,
    ) -> None:
        self.target = target
        self.repo = config.repo
        self.lane = lane
        self.home = home
        self.attempts = 1 + config.limits.max_resumes
        self.heartbeat_seconds = heartbeat_seconds
        self._loop = asyncio.new_event_loop()
        self.client: Client = self._call(connect(target, environ))
        self._jobs: dict[int, RemoteJob] = {}
        self._checked: dict[int, float] = {}
        self._call(self._adopt())

    def _call(self, coro: Coroutine[Any, Any, T]) -> T:
        try:
            return self._loop.run_until_complete(coro)
        except RPCError as exc:
            msg = f"temporal at {self.target.address}: {exc.message}"
            raise ExecutorError(msg) from exc

    def close(self) -> None:
        """Close the private event loop."""
        self._loop.close()

    async def _adopt(self) -> None:
        """The running workflows of this repository and lane (a restarted orchestrator's)."""
        query = f"WorkflowType = '{WORKFLOW}' AND ExecutionStatus = 'Running'"
        async for found in self.client.list_workflows(query):
            await self._take(found)

    async def _adopt_one(self, wid: str) -> RemoteJob | None:
        """The running workflow `wid` if it is this repository's and lane's, now known."""
        described = await self.client.get_workflow_handle(wid).describe()
        if described.status != WorkflowExecutionStatus.RUNNING:
            return None
        return await self._take(described)

    async def _take(self, found: WorkflowExecution) -> RemoteJob | None:
        memo = await found.memo()
        if memo.get("repo") != self.repo or memo.get("lane") != self.lane:
            return None
        issue, stage = int(memo["issue"]), Stage(str(memo["stage"]))
        started = found.start_time.astimezone(UTC)
        job = self._jobs[issue] = RemoteJob(issue, stage, found.id, found.run_id, started)
        await self._refresh(job)
        return job

    # -- the Executor seam --------------------------------------------------------------
    def start(
        self,
        issue: int,
        stage: Stage,
        now: datetime,
        *,
        resume: bool = False,
        stack_on: int | None = None,
    ) -> JobHandle:
        """Start the stage job's workflow; a workflow still running for the issue refuses it."""
        job = JobInput(
            repo=self.repo, issue=issue, stage=stage.value, lane=self.lane, resume=resume,
            attempts=self.attempts, heartbeat_seconds=self.heartbeat_seconds, stack_on=stack_on,
        )  # fmt: skip
        memo = {"repo": self.repo, "lane": self.lane, "issue": issue, "stage": stage.value}
        wid = workflow_id(self.repo, issue)
        try:
            handle = self._call(
                self.client.start_workflow(
                    WORKFLOW,
                    job,
                    id=wid,
                    task_queue=self.target.queue,
                    memo=memo,
                    result_type=JobResult,
                )
            )
        except WorkflowAlreadyStartedError as exc:
            # Started by an earlier orchestrator of this lane and not listed yet: adopt it.
            adopted = self._call(self._adopt_one(wid))
            if adopted is None:
                msg = f"workflow {wid} is still running for another lane"
                raise ExecutorError(msg) from exc
            return self._handle_of(adopted)
        self._jobs[issue] = RemoteJob(issue, stage, wid, handle.result_run_id, now)
        self._checked[issue] = time.monotonic()
        return JobHandle(issue, stage, 0, None, now)

    def running(self) -> dict[int, JobHandle]:
        """A handle per issue whose workflow runs, as last heard."""
        return {n: self._handle_of(job) for n, job in self._jobs.items() if job.running}

    def _handle_of(self, job: RemoteJob) -> JobHandle:
        return JobHandle(job.issue, job.stage, 0, None, job.started_at)

    def alive(self, handle: JobHandle) -> bool:
        """Whether the issue's workflow still runs (asked of Temporal at most every 0.25 s)."""
        job = self._jobs.get(handle.issue)
        if job is None:
            return False
        if job.running and time.monotonic() - self._checked.get(handle.issue, 0.0) >= FRESH_S:
            try:
                self._call(self._refresh(job))
            except ExecutorError:
                return True  # unknown is not gone: the next tick asks again
        return job.running

    def terminate(self, handle: JobHandle) -> None:
        """Cancel the workflow: its activity SIGTERMs the job, which saves its issue."""
        job = self._jobs.get(handle.issue)
        if job is not None and job.running:
            self._call(self._handle(job).cancel())

    # -- what the tick reads besides ----------------------------------------------------
    def remote_jobs(self) -> list[RecordedJob]:
        """Every known job with a job.json, refreshed now, oldest first."""
        for job in self._jobs.values():
            if job.running:
                self._call(self._refresh(job))
        found = [r for job in self._jobs.values() if (r := job.recorded()) is not None]
        return sorted(found, key=lambda r: r.record.started_at)

    def end_note(self, handle: JobHandle) -> str:
        """Where and how the issue's last job ended."""
        job = self._jobs.get(handle.issue)
        return "" if job is None else job.end_note()

    def _handle(self, job: RemoteJob) -> WorkflowHandle[Any, JobResult]:
        return self.client.get_workflow_handle(
            job.workflow_id, run_id=job.run_id, result_type=JobResult
        )

    async def _refresh(self, job: RemoteJob) -> None:
        """Ask Temporal how the job's workflow stands: its heartbeat, or its result."""
        handle = self._handle(job)
        described = await handle.describe()
        self._checked[job.issue] = time.monotonic()
        for pending in described.raw_description.pending_activities:
            payloads = pending.heartbeat_details.payloads
            if payloads:
                decoded = await self.client.data_converter.decode(payloads, [JobProgress])
                job.heard(decoded[0], pending.attempt)
        if described.status == WorkflowExecutionStatus.RUNNING:
            return
        if described.status == WorkflowExecutionStatus.COMPLETED:
            job.ended(await handle.result())
        job.running = False
        if not job.ledgered and job.record is not None:
            job.ledgered = True  # remote sessions count against this home's limits too
            save_job_sessions(self.home, job.record)
