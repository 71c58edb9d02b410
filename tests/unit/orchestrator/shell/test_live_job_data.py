"""The watchdog and the start gate fed from job.json: live sessions and usage-limit resets."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from conveyor.core.stops import StopCode
from conveyor.job.jobfile import (
    RUNNING,
    Finished,
    JobRecord,
    SessionRecord,
    ToolFailureRecord,
)
from conveyor.orchestrator.decisions import Steer, Terminate
from conveyor.orchestrator.memory import WatchMemory
from conveyor.orchestrator.shell.executor import RecordedJob
from conveyor.orchestrator.shell.gather import usage_limit_until
from conveyor.orchestrator.shell.issue_views import job_view
from conveyor.orchestrator.watchdog import watch
from tests.unit.orchestrator.factory import config, issue, snapshot

NOW = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
BASH = ToolFailureRecord(tool="Bash", error="pytest: error: no tests ran", streak=3)


def _session(**changes: object) -> SessionRecord:
    base: dict[str, object] = {"key": "triage-1", "backend": "claude", "model": "m"}
    base |= {"status": RUNNING, "budget": 50_000, "last_context": 20_000}
    return SessionRecord.model_validate(base | changes)


def _job(*sessions: SessionRecord, alive: bool = True, ago: timedelta = timedelta()) -> RecordedJob:
    at = NOW - ago
    record = JobRecord(
        issue=3, stage="triage", role="reader", lane="lane-a", job_id="issue-3-triage-x",
        pid=4003, process_start=1, started_at=at - timedelta(minutes=5), heartbeat=at,
        sessions=list(sessions), finished=None if alive else Finished(outcome="saved", at=at),
    )  # fmt: skip
    return RecordedJob(Path("/jobs/issue-3-triage-x"), record, alive)


def test_a_running_session_gives_the_view_its_context_budget_and_failing_tool() -> None:
    """job.json's running session is what the watchdog judges."""
    view = job_view(_job(_session(tool_failure=BASH)))
    assert (view.session, view.context_tokens, view.token_budget) == ("triage-1", 20_000, 50_000)
    assert view.tool_failure is not None
    assert (view.tool_failure.tool, view.tool_failure.streak) == ("Bash", 3)


def test_an_ended_session_is_never_judged_as_live() -> None:
    """Between sessions the last one's context and failures are not the live job's."""
    view = job_view(_job(_session(status="replied", last_context=90_000, tool_failure=BASH)))
    assert (view.context_tokens, view.token_budget, view.tool_failure) == (None, None, None)


def test_three_failures_of_one_tool_on_file_make_one_steer_quoting_the_error() -> None:
    """WD-8 on a job.json: one steer, the error fenced as data."""
    view = job_view(_job(_session(tool_failure=BASH)))
    done = watch(snapshot(issue(3), jobs=(view,)), config(), NOW, WatchMemory())
    steers = [d for d in done.decisions if isinstance(d, Steer)]
    assert len(steers) == 1
    assert "```text\npytest: error: no tests ran\n```" in steers[0].text


def test_a_live_context_past_its_budget_on_file_gets_sigterm() -> None:
    """WD-10 on a job.json: the running job is signalled, its issue stopped once it exits."""
    view = job_view(_job(_session(last_context=60_000)))
    done = watch(snapshot(issue(3), jobs=(view,)), config(), NOW, WatchMemory())
    assert [type(d) for d in done.decisions] == [Terminate]
    assert [s.control for s in done.memory.stops] == [StopCode.BUDGET]


def test_a_reset_an_hour_ahead_holds_until_then() -> None:
    """BB-PAUSE-7: the hold lasts until the provider's reset."""
    reset = NOW + timedelta(hours=1)
    job = _job(_session(status="rate_limited", rate_limit_reset=reset), alive=False)
    assert usage_limit_until([job], NOW) == reset


def test_a_reset_twenty_hours_ahead_is_capped_at_eight_hours() -> None:
    """The hold never lasts more than 8 hours from the limit."""
    reset = NOW + timedelta(hours=20)
    job = _job(_session(status="rate_limited", rate_limit_reset=reset), alive=False)
    assert usage_limit_until([job], NOW) == NOW + timedelta(hours=8)


def test_a_past_reset_holds_nothing() -> None:
    """The limit has lifted."""
    reset = NOW - timedelta(minutes=1)
    job = _job(_session(status="rate_limited", rate_limit_reset=reset), alive=False)
    assert usage_limit_until([job], NOW) is None


def test_the_latest_reset_ahead_across_jobs_is_the_one_held_to() -> None:
    """Two jobs hit the limit: the later reset wins."""
    early, late = NOW + timedelta(minutes=10), NOW + timedelta(hours=2)
    jobs = [
        _job(_session(status="rate_limited", rate_limit_reset=late), alive=False),
        _job(_session(status="rate_limited", rate_limit_reset=early), alive=False),
    ]
    assert usage_limit_until(jobs, NOW) == late


def test_a_limit_hit_nine_hours_ago_no_longer_holds() -> None:
    """The cap counts from when the session hit the limit, so an old far reset lapses."""
    reset = NOW + timedelta(hours=10)
    job = _job(
        _session(status="rate_limited", rate_limit_reset=reset),
        alive=False,
        ago=timedelta(hours=9),
    )
    assert usage_limit_until([job], NOW) is None
