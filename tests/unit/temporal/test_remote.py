"""What the orchestrator makes of a remote job's heartbeats and result, and the target's checks."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from conveyor.core.state import Stage
from conveyor.job.jobfile import Finished, JobRecord
from conveyor.orchestrator.shell.executor import RecordedJob
from conveyor.orchestrator.shell.status_file import _job_entry
from conveyor.temporal.messages import JobProgress, JobResult
from conveyor.temporal.remote import RemoteJob, parse_record, workflow_id
from conveyor.temporal.target import API_KEY_ENV, TargetError, TemporalTarget, job_environment

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def _record(job_id: str, *, finished: bool = False) -> str:
    record = JobRecord(
        issue=7, stage="implement", role="writer", lane="lane-1", job_id=job_id, pid=4242,
        process_start=9, started_at=NOW, heartbeat=NOW + timedelta(seconds=5),
        finished=Finished(outcome="saved", at=NOW + timedelta(seconds=9)) if finished else None,
    )  # fmt: skip
    return record.model_dump_json()


def _job() -> RemoteJob:
    return RemoteJob(7, Stage.IMPLEMENT, workflow_id("o/r", 7), "run-1", NOW)


def test_one_workflow_id_per_issue_names_the_repository() -> None:
    """Two repositories' issue 7 never share a workflow; the same issue always does."""
    assert workflow_id("o/r", 7) == workflow_id("o/r", 7)
    assert workflow_id("o/r", 7) != workflow_id("o/s", 7)


def test_a_job_is_not_recorded_until_its_worker_heartbeats_a_job_json() -> None:
    """Before the job has claimed (no job.json) the tick sees only the handle."""
    job = _job()
    job.heard(JobProgress("w1", None, None), attempt=1)
    assert job.recorded() is None


def test_a_heartbeated_job_is_a_live_recorded_job_on_its_worker() -> None:
    """The heartbeat's job.json becomes the job the watchdog judges, named by its worker."""
    job = _job()
    job.heard(JobProgress("w1", "/w1/jobs/a", _record("a")), attempt=1)
    recorded = job.recorded()
    assert recorded is not None
    assert (recorded.alive, recorded.worker, recorded.record.job_id) == (True, "w1", "a")
    assert recorded.job_dir == Path("/w1/jobs/a")


def test_a_retry_on_another_worker_replaces_the_lost_attempts_job() -> None:
    """Attempt 2's heartbeat from w2 is the job from then on, even before its job.json exists."""
    job = _job()
    job.heard(JobProgress("w1", "/w1/jobs/a", _record("a")), attempt=1)
    job.heard(JobProgress("w2", None, None), attempt=2)
    assert job.recorded() is None
    job.heard(JobProgress("w2", "/w2/jobs/b", _record("b")), attempt=2)
    recorded = job.recorded()
    assert recorded is not None
    assert (recorded.worker, recorded.record.job_id) == ("w2", "b")


def test_a_finished_job_whose_workflow_still_runs_keeps_the_issue_busy() -> None:
    """A shut-down worker's job finished `interrupted`; its retry is pending: still alive."""
    job = _job()
    job.heard(JobProgress("w1", "/w1/jobs/a", _record("a", finished=True)), attempt=1)
    recorded = job.recorded()
    assert recorded is not None
    assert recorded.alive is True


def test_a_workflow_gone_without_a_result_leaves_a_dead_unfinished_job() -> None:
    """Attempts used up: the last job.json is not finished and not alive, as a dead local job."""
    job = _job()
    job.heard(JobProgress("w1", "/w1/jobs/a", _record("a")), attempt=3)
    job.running = False
    recorded = job.recorded()
    assert recorded is not None
    assert (recorded.alive, recorded.record.finished) == (False, None)


def test_the_result_gives_the_final_job_json_and_the_end_line() -> None:
    """The activity's result carries the finished job.json, the worker and the attempt."""
    job = _job()
    job.ended(JobResult(0, "w2", 2, "/w2/jobs/b", _record("b", finished=True)))
    recorded = job.recorded()
    assert recorded is not None
    assert recorded.alive is False
    assert job.end_note() == " on worker w2 exit 0 (attempt 2): saved"


def test_status_json_names_the_worker_of_a_remote_job() -> None:
    """`conveyor status` and the live view read the worker from status.json."""
    record = parse_record(_record("a"))
    assert record is not None
    entry = _job_entry(RecordedJob(Path("/w1/jobs/a"), record, True, worker="w1"), NOW)
    assert entry["worker"] == "w1"


def test_an_unreadable_job_json_is_no_record() -> None:
    """A torn or foreign heartbeat detail is skipped, not a crash of the tick."""
    assert parse_record("{not json") is None
    assert parse_record(None) is None


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"address": "localhost"}, "--temporal"),
        ({"address": "host:port"}, "--temporal"),
        ({"address": "h:7233", "queue": " "}, "--queue"),
        ({"address": "h:7233", "tls_cert": Path("c.pem")}, "--tls-cert and --tls-key"),
    ],
)
def test_a_target_that_cannot_work_is_one_line_naming_the_option(
    kwargs: dict[str, object], named: str
) -> None:
    """HOST:PORT, a queue name, and a certificate with its key, or a usage error saying which."""
    with pytest.raises(TargetError, match=named) as caught:
        TemporalTarget(**kwargs)  # type: ignore[arg-type]
    assert "\n" not in str(caught.value)


def test_jobs_never_see_the_temporal_api_key() -> None:
    """The key a worker connects with is not in its jobs' (and so sessions') environment."""
    assert job_environment({API_KEY_ENV: "secret", "PATH": "/bin"}) == {"PATH": "/bin"}
