"""The reader the forge's pipeline pages are handed: a home's status, ledger and timelines,
read by the pipeline's own modules; an unreadable file is a problem line, never a crash."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from conveyor.job.ledger import LEDGER_FILE, LedgerDb, LedgerRow
from conveyor.job.timeline_read import read_timeline
from conveyor.orchestrator.shell.pipeline_files import PipelineFiles
from conveyor.orchestrator.shell.status_file import STATUS_FILE, save_status
from tests.contract.web.timeline_home import write_jobs

T = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)


def _row(issue: int, key: str, tokens: int, cost: float | None) -> LedgerRow:
    return LedgerRow(
        job_id=f"issue-{issue}-triage-x",
        session_key=key,
        issue=issue,
        stage="triage",
        role="reader",
        backend="claude",
        model="sonnet",
        launch_charge=1000,
        input_tokens=tokens,
        output_tokens=0,
        cache_read_tokens=0,
        cache_write_tokens=0,
        cost_usd=cost,
        started_at=T,
        ended_at=T,
    )


def test_each_repository_reports_its_status_and_its_spending_per_issue_in_number_order(
    tmp_path: Path,
) -> None:
    """Issue 9 before issue 10; tokens and cost summed, a cost the CLI never said counted."""
    folder = tmp_path / "acme__widgets"
    save_status(folder / STATUS_FILE, {"repo": "acme/widgets", "lane": "l"})
    with LedgerDb(folder / LEDGER_FILE) as ledger:
        ledger.append([_row(10, "a", 100, 0.5), _row(9, "b", 20, None), _row(9, "c", 30, 0.25)])
    write_jobs(folder, 9)
    (report,) = PipelineFiles(tmp_path).repositories()
    assert (report.slug, report.problem, report.spending_problem) == ("acme/widgets", None, None)
    assert report.status is not None
    assert report.status["lane"] == "l"
    spent = [(s.issue, s.sessions, s.tokens, s.cost_usd, s.unknown) for s in report.spending]
    assert spent == [(9, 2, 50, 0.25, 1), (10, 1, 100, 0.5, 0)]
    assert report.recent == (9,)
    shown = PipelineFiles(tmp_path).timeline("acme/widgets", 9)
    assert shown == read_timeline(folder, 9)
    assert shown.bars


def test_an_unreadable_status_or_ledger_is_named_not_raised(tmp_path: Path) -> None:
    """A status that is not an object and a ledger that is not SQLite each give one line
    naming the file; the repository is named from its folder."""
    folder = tmp_path / "acme__gadgets"
    folder.mkdir()
    (folder / STATUS_FILE).write_text(json.dumps([1, 2]))
    (folder / LEDGER_FILE).write_text("not a database, written by something hostile")
    (report,) = PipelineFiles(tmp_path).repositories()
    assert report.slug == "acme/gadgets"
    assert report.status is None
    assert report.problem is not None
    assert report.problem.startswith(str(folder / STATUS_FILE))
    assert "expected a JSON object" in report.problem
    assert report.spending_problem is not None
    assert report.spending_problem.startswith(str(folder / LEDGER_FILE))


def test_a_home_with_no_status_has_no_repositories_and_no_timeline(tmp_path: Path) -> None:
    """Nothing written yet reads as nothing, not an error."""
    files = PipelineFiles(tmp_path / "missing")
    assert files.repositories() == ()
    assert files.timeline("acme/widgets", 1).bars == ()
