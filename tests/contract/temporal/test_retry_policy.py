"""The activity's retry policy on a real Temporal dev server: a job's own outcomes are results,
never retried; only infrastructure failures (the job killed by a signal) are, with `--resume`.

The job is a shell command standing in for `conveyor job`: it records its arguments and ends
as told, so each outcome is exact.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from pathlib import Path

import pytest
from temporalio.client import Client, WorkflowFailureError
from temporalio.exceptions import ActivityError, ApplicationError
from temporalio.worker import Worker

from conveyor.temporal.activity import JobActivity, RepoSetup
from conveyor.temporal.messages import WORKFLOW, JobInput, JobResult
from conveyor.temporal.workflow import StageJobWorkflow
from conveyor.testing.temporal_server import TemporalDevServer

REPO = "acme/widgets"


def _failure_type(error: WorkflowFailureError) -> str:
    """The activity's failure type under the workflow's failure."""
    cause = error.cause
    inner = cause.cause if isinstance(cause, ActivityError) else None
    return str(inner.type) if isinstance(inner, ApplicationError) else repr(cause)


def _run(
    server: TemporalDevServer,
    tmp_path: Path,
    ending: str,
    *,
    repo: str = REPO,
    stage: str = "triage",
) -> tuple[JobResult | str, list[str]]:
    """The workflow's result (or its failure's type) and each attempt's job arguments."""
    calls = tmp_path / "calls"
    script = f'echo "$@" >> {calls}; {ending}'
    setup = RepoSetup(tmp_path / "conveyor.toml", tmp_path / "home")
    activity = JobActivity(
        {REPO: setup}, {"PATH": os.environ["PATH"]}, "test-worker", ["/bin/sh", "-c", script, "sh"]
    )
    queue = f"retry-{uuid.uuid4().hex}"
    job = JobInput(repo, 7, stage, "lane-1", resume=False, attempts=2, heartbeat_seconds=10)

    async def go() -> JobResult | str:
        client = await Client.connect(server.address)
        async with Worker(
            client, task_queue=queue, workflows=[StageJobWorkflow], activities=[activity.run],
            max_cached_workflows=0,
        ):  # fmt: skip
            handle = await client.start_workflow(
                WORKFLOW, job, id=f"wf-{queue}", task_queue=queue, result_type=JobResult
            )
            try:
                result: JobResult = await handle.result()
            except WorkflowFailureError as exc:
                return _failure_type(exc)
            return result

    outcome = asyncio.run(go())
    lines = calls.read_text().splitlines() if calls.exists() else []
    return outcome, lines


@pytest.mark.parametrize("code", [0, 1, 3])
def test_a_job_that_exits_by_itself_is_a_result_run_once(
    temporal_server: TemporalDevServer, tmp_path: Path, code: int
) -> None:
    """Ended, error-with-issue-saved and not-claimable are outcomes the orchestrator reads."""
    outcome, calls = _run(temporal_server, tmp_path, f"exit {code}")
    assert isinstance(outcome, JobResult)
    assert (outcome.exit_code, outcome.attempt, outcome.worker) == (code, 1, "test-worker")
    assert len(calls) == 1
    assert "--lane lane-1" in calls[0]


def test_a_job_killed_by_a_signal_is_retried_with_resume_up_to_the_attempts(
    temporal_server: TemporalDevServer, tmp_path: Path
) -> None:
    """Infrastructure: attempt 2 resumes the stage; after the last attempt the workflow fails."""
    outcome, calls = _run(temporal_server, tmp_path, "kill -9 $$")
    assert outcome == "JobKilled"
    assert len(calls) == 2
    assert "--resume" not in calls[0]
    assert calls[1].endswith("--resume")


def test_a_retried_spec_job_resumes_on_what_was_rescued(
    temporal_server: TemporalDevServer, tmp_path: Path
) -> None:
    """Every stage resumes after a kill (issue 12), the spec too: its retry runs with `--resume`."""
    _, calls = _run(temporal_server, tmp_path, "kill -9 $$", stage="spec")
    assert len(calls) == 2
    assert "--resume" not in calls[0]
    assert calls[1].endswith("--resume")


@pytest.mark.parametrize(("ending", "repo", "kind"), [
    ("exit 2", REPO, "JobUsageError"),
    ("exit 0", "acme/other", "NoConfigForRepo"),
])  # fmt: skip
def test_a_job_that_cannot_run_anywhere_fails_at_once(
    temporal_server: TemporalDevServer, tmp_path: Path, ending: str, repo: str, kind: str
) -> None:
    """Refused arguments, or a repository this worker has no config for: no retry."""
    outcome, calls = _run(temporal_server, tmp_path, ending, repo=repo)
    assert outcome == kind
    assert len(calls) == (1 if repo == REPO else 0)


def test_a_worker_shutting_down_stops_its_job_and_another_worker_runs_it(
    temporal_server: TemporalDevServer, tmp_path: Path
) -> None:
    """SIGTERM reaches the job as the worker shuts down; the attempt fails as "worker shut
    down" and the next worker on the queue runs the job again, with `--resume`."""
    calls, stopped = tmp_path / "calls", tmp_path / "stopped"
    first = (
        f'echo "$@" >> {calls}; if [ ! -e {stopped} ]; then '
        f"trap 'touch {stopped}; exit 1' TERM; sleep 30 & wait; fi; exit 0"
    )
    setup = RepoSetup(tmp_path / "conveyor.toml", tmp_path / "home")
    env = {"PATH": os.environ["PATH"]}
    activities = [
        JobActivity({REPO: setup}, env, name, ["/bin/sh", "-c", first, "sh"]) for name in "ab"
    ]
    queue = f"shutdown-{uuid.uuid4().hex}"
    job = JobInput(REPO, 7, "implement", "lane-1", resume=False, attempts=3, heartbeat_seconds=10)

    async def go() -> JobResult:
        client = await Client.connect(server_address)
        options = {"task_queue": queue, "workflows": [StageJobWorkflow], "max_cached_workflows": 0}
        one = Worker(client, activities=[activities[0].run], **options)  # type: ignore[arg-type]
        running = asyncio.create_task(one.run())
        handle = await client.start_workflow(
            WORKFLOW, job, id=f"wf-{queue}", task_queue=queue, result_type=JobResult
        )
        while not calls.exists():
            await asyncio.sleep(0.05)
        await one.shutdown()
        await running
        async with Worker(client, activities=[activities[1].run], **options):  # type: ignore[arg-type]
            result: JobResult = await handle.result()
        return result

    server_address = temporal_server.address
    result = asyncio.run(go())
    assert stopped.exists(), "the job got SIGTERM"
    assert (result.exit_code, result.attempt, result.worker) == (0, 2, "b")
    lines = calls.read_text().splitlines()
    assert len(lines) == 2
    assert lines[1].endswith("--resume")
