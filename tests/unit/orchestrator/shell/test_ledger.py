"""The ledger: rows per session, unknown cost kept apart from zero, and its sums."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from conveyor.job.jobfile import JobRecord, SessionRecord, UsageRecord
from conveyor.orchestrator.shell.ledger import (
    LEDGER_FILE,
    LedgerDb,
    LedgerRow,
    save_job_sessions,
    session_rows,
)
from conveyor.orchestrator.snapshot import Ledger

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def _row(
    key: str,
    *,
    issue: int = 1,
    stage: str = "review",
    model: str = "sonnet",
    cost: float | None = 0.5,
    started: datetime = NOW,
    charge: int = 60_000,
) -> LedgerRow:
    return LedgerRow(
        job_id=f"job-{issue}-{stage}", session_key=key, issue=issue, stage=stage, role="reader",
        backend="claude", model=model, launch_charge=charge, input_tokens=100, output_tokens=20,
        cache_read_tokens=300, cache_write_tokens=5, cost_usd=cost, started_at=started,
        ended_at=started + timedelta(minutes=5),
    )  # fmt: skip


def test_spent_today_counts_unknown_cost_as_zero_and_reports_how_many(tmp_path: Path) -> None:
    """Two known costs sum; a session without a cost adds nothing but is counted as unknown."""
    with LedgerDb(tmp_path / LEDGER_FILE) as ledger:
        ledger.append([_row("a", cost=0.5), _row("b", cost=0.25), _row("c", cost=None)])
        today = ledger.spent_today(NOW + timedelta(hours=1))
    assert (today.sessions, today.cost_usd, today.unknown) == (3, 0.75, 1)
    assert today.tokens == 3 * 425


def test_an_unknown_cost_is_stored_as_null_not_zero(tmp_path: Path) -> None:
    """The row keeps no number for a cost the agent CLI did not report."""
    path = tmp_path / LEDGER_FILE
    with LedgerDb(path) as ledger:
        ledger.append([_row("a", cost=None), _row("b", cost=0.0)])
        lines = {line.key: line for line in ledger.by("model", NOW - timedelta(days=1))}
    assert (lines["sonnet"].cost_usd, lines["sonnet"].unknown) == (0.0, 1)


def test_yesterday_is_not_spent_today(tmp_path: Path) -> None:
    """A session started before midnight UTC does not count against today's money."""
    with LedgerDb(tmp_path / LEDGER_FILE) as ledger:
        ledger.append([_row("old", started=NOW - timedelta(hours=13)), _row("new")])
        assert ledger.spent_today(NOW).sessions == 1


def test_launch_charges_of_the_last_hour_feed_the_scheduler(tmp_path: Path) -> None:
    """Only sessions started in the last hour count towards tokens per hour."""
    with LedgerDb(tmp_path / LEDGER_FILE) as ledger:
        ledger.append([
            _row("early", started=NOW - timedelta(minutes=90), charge=300_000),
            _row("late", started=NOW - timedelta(minutes=10), charge=60_000, cost=None),
        ])  # fmt: skip
        figures = ledger.figures(NOW)
    assert figures == Ledger(charges_last_hour=60_000, spent_today=0.5, unknown_cost_sessions=1)


def test_sums_group_by_issue_stage_day_and_model(tmp_path: Path) -> None:
    """Each grouping gives one line per key with its own sums."""
    with LedgerDb(tmp_path / LEDGER_FILE) as ledger:
        ledger.append([
            _row("a", issue=1, stage="triage", model="haiku"),
            _row("b", issue=2, stage="review", model="sonnet"),
            _row("c", issue=2, stage="review", model="sonnet", started=NOW - timedelta(days=1)),
        ])  # fmt: skip
        since = NOW - timedelta(days=2)
        issues = {line.key: line.sessions for line in ledger.by("issue", since)}
        stages = {line.key: line.sessions for line in ledger.by("stage", since)}
        days = {line.key: line.sessions for line in ledger.by("day", since)}
        models = {line.key: line.cost_usd for line in ledger.by("model", since)}
    assert issues == {"1": 1, "2": 2}
    assert stages == {"triage": 1, "review": 2}
    assert days == {"2026-11-28": 1, "2026-11-29": 2}
    assert models == {"haiku": 0.5, "sonnet": 1.0}


def test_writing_a_session_again_replaces_its_row(tmp_path: Path) -> None:
    """A job writing its rows at launch and again at the end leaves one row per session."""
    with LedgerDb(tmp_path / LEDGER_FILE) as ledger:
        ledger.append([_row("a", cost=None)])
        ledger.append([_row("a", cost=0.3)])
        total = ledger.total_since(NOW - timedelta(hours=1))
    assert (total.sessions, total.cost_usd, total.unknown) == (1, 0.3, 0)


def test_a_jobs_sessions_become_rows_with_their_budget_as_launch_charge(tmp_path: Path) -> None:
    """Each session of job.json is one row: tokens by kind, its budget, its cost or unknown."""
    record = JobRecord(
        issue=4, stage="implement", role="writer", lane="l", job_id="issue-4-implement-x",
        pid=1, process_start=1, started_at=NOW, heartbeat=NOW,
        sessions=[
            SessionRecord(key="implement", backend="codex", model="gpt", status="replied",
                          usage=UsageRecord(input=10, output=2, cache_read=7, cache_write=0),
                          budget=150_000),
        ],
    )  # fmt: skip
    rows = session_rows(record, NOW + timedelta(minutes=3))
    assert [(r.issue, r.stage, r.launch_charge, r.cost_usd, r.cache_read_tokens) for r in rows] == [
        (4, "implement", 150_000, None, 7),
    ]
    save_job_sessions(tmp_path, record, NOW + timedelta(minutes=3))
    with LedgerDb(tmp_path / LEDGER_FILE, readonly=True) as ledger:
        assert ledger.spent_today(NOW).unknown == 1


def test_a_missing_ledger_read_only_is_empty_and_not_created(tmp_path: Path) -> None:
    """`conveyor cost` before any job ran shows nothing and leaves no file behind."""
    with LedgerDb(tmp_path / LEDGER_FILE, readonly=True) as ledger:
        assert ledger.spent_today(NOW).sessions == 0
        with pytest.raises(RuntimeError, match="read-only"):
            ledger.append([_row("a")])
    assert not (tmp_path / LEDGER_FILE).exists()


def test_a_time_without_a_zone_is_refused(tmp_path: Path) -> None:
    """Naive times would shift the day boundary; the ledger names the bad value."""
    with LedgerDb(tmp_path / LEDGER_FILE) as ledger, pytest.raises(ValueError, match="time zone"):
        ledger.append([_row("a", started=datetime(2026, 1, 1))])  # noqa: DTZ001 - the bad input


def test_a_ledger_file_a_job_has_just_created_reads_as_empty(tmp_path: Path) -> None:
    """The orchestrator reading while a job creates the file (no table yet) sees nothing spent."""
    path = tmp_path / LEDGER_FILE
    sqlite3.connect(path).close()  # the file exists, its table does not yet
    with LedgerDb(path, readonly=True) as ledger:
        assert ledger.spent_today(NOW).sessions == 0
        assert ledger.charges_since(NOW - timedelta(hours=1)) == 0
