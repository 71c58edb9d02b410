"""The workflow: one activity per stage job, nothing else (deterministic by having no logic)."""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from conveyor.temporal.messages import ACTIVITY, NOT_RETRIED, WORKFLOW, JobInput, JobResult

# A job's sessions, CI waits and pushes can take hours; a lost worker is found by heartbeat.
START_TO_CLOSE = timedelta(hours=24)
FIRST_RETRY = timedelta(seconds=1)


@workflow.defn(name=WORKFLOW)
class StageJobWorkflow:
    """Runs the stage job as one activity and returns how it ended."""

    @workflow.run
    async def run(self, job: JobInput) -> JobResult:
        """The activity, retried only for infrastructure failures; a cancel waits for the save."""
        result: JobResult = await workflow.execute_activity(
            ACTIVITY,
            job,
            result_type=JobResult,
            start_to_close_timeout=START_TO_CLOSE,
            heartbeat_timeout=timedelta(seconds=job.heartbeat_seconds),
            retry_policy=RetryPolicy(
                initial_interval=FIRST_RETRY,
                maximum_attempts=job.attempts,
                non_retryable_error_types=list(NOT_RETRIED),
            ),
            cancellation_type=workflow.ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
        )
        return result
