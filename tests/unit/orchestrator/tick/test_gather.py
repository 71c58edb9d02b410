"""The tick's job views: a started job without job.json yet still counts as the issue's live job."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from conveyor.core.state import Stage
from conveyor.job.jobfile import Finished, JobRecord
from conveyor.orchestrator.shell.executor import JobHandle, RecordedJob
from conveyor.orchestrator.shell.gather import job_views
from conveyor.orchestrator.snapshot import JobRole

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def _recorded(issue: int, stage: str, *, pid: int, alive: bool, done: bool = False) -> RecordedJob:
    started = NOW - timedelta(minutes=10)
    record = JobRecord(
        issue=issue, stage=stage, role="reader", lane="here", job_id=f"issue-{issue}-{stage}",
        pid=pid, process_start=7, started_at=started, heartbeat=started,
        finished=Finished(outcome="saved", at=started) if done else None,
    )  # fmt: skip
    return RecordedJob(Path(f"/jobs/issue-{issue}-{stage}"), record, alive)


def _handle(issue: int, stage: Stage, pid: int) -> JobHandle:
    return JobHandle(issue, stage, pid, 9, NOW - timedelta(seconds=5))


def test_a_started_job_without_job_json_is_the_issues_live_job() -> None:
    """Between the start and the claim nothing is on disk: the handle stands for the job."""
    views = job_views([], {3: _handle(3, Stage.SPEC, 100)}, NOW)
    assert [(v.issue, v.stage, v.alive, v.role) for v in views] == [
        (3, Stage.SPEC, True, JobRole.WRITER)
    ]


def test_a_resumed_job_hides_the_dead_one_it_replaces() -> None:
    """A dead unfinished job.json plus a live resume handle: only the live job is seen."""
    dead = _recorded(4, "implement", pid=50, alive=False)
    views = job_views([dead], {4: _handle(4, Stage.IMPLEMENT, 60)}, NOW)
    assert [(v.pid, v.alive) for v in views] == [(60, True)]


def test_a_handle_whose_job_wrote_job_json_is_read_from_the_file() -> None:
    """Once job.json exists for the handle's process, the record is the view."""
    live = _recorded(5, "triage", pid=70, alive=True)
    handle = JobHandle(5, Stage.TRIAGE, 70, 7, NOW)
    views = job_views([live], {5: handle}, NOW)
    assert [(v.pid, v.started_at) for v in views] == [(70, live.record.started_at)]


def test_every_issue_has_one_view_in_number_order() -> None:
    """Finished older jobs do not add views; issues come in number order."""
    jobs = [
        _recorded(9, "triage", pid=1, alive=False, done=True),
        _recorded(2, "spec", pid=2, alive=True),
    ]
    views = job_views(jobs, {}, NOW)
    assert [(v.issue, v.finished) for v in views] == [(2, False), (9, True)]
