"""What job.json tells the scheduler about each agent CLI: its newest ended session."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from conveyor.core.agent_failure import InfraKind
from conveyor.job.jobfile import RUNNING, Finished, JobRecord, SessionRecord
from conveyor.orchestrator.shell.executor import RecordedJob
from conveyor.orchestrator.shell.gather import agent_ends, usage_limit_until

NOW = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def _job(number: int, *sessions: SessionRecord) -> RecordedJob:
    record = JobRecord(
        issue=number, stage="triage", role="reader", lane="lane-a", job_id=f"job-{number}",
        pid=4000 + number, process_start=1, started_at=NOW - timedelta(minutes=9),
        heartbeat=NOW, sessions=list(sessions), finished=Finished(outcome="released", at=NOW),
    )  # fmt: skip
    return RecordedJob(Path(f"/jobs/job-{number}"), record, alive=False)


def _session(backend: str, minutes_ago: int, **more: object) -> SessionRecord:
    base: dict[str, object] = {"key": f"triage-{minutes_ago}", "backend": backend, "model": "m"}
    base |= {"status": "failed", "ended_at": NOW - timedelta(minutes=minutes_ago)}
    return SessionRecord.model_validate(base | more)


def test_the_newest_ended_session_of_each_cli_is_the_one_that_counts() -> None:
    """A later session that worked hides an earlier failed sign-in; running ones are skipped."""
    jobs = [
        _job(1, _session("claude", 5, infra="auth", error="Not logged in")),
        _job(2, _session("claude", 1, status="replied")),
        _job(3, _session("codex", 3, infra="network", error="ECONNRESET")),
        _job(4, _session("codex", 0, status=RUNNING)),
    ]
    ends = {end.backend: end for end in agent_ends(jobs)}
    assert ends["claude"].infra is None
    assert (ends["codex"].infra, ends["codex"].error) == (InfraKind.NETWORK, "ECONNRESET")


def test_a_usage_limit_without_a_reset_holds_for_the_fallback_backoff() -> None:
    """BB-PAUSE-7: no time named, so fifteen minutes from when the limit was hit."""
    job = _job(1, _session("claude", 5, status="rate_limited", infra="usage-limit"))
    assert usage_limit_until([job], NOW) == NOW + timedelta(minutes=10)
