"""status.json: built purely from one tick's facts, written atomically, with the BB-ESC streaks."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from conveyor.core.state import Stage, Stopped
from conveyor.core.stops import StopCode
from conveyor.job.jobfile import JobRecord, SessionRecord
from conveyor.orchestrator.decisions import Decisions, Hold, Pause
from conveyor.orchestrator.shell.executor import RecordedJob
from conveyor.orchestrator.shell.ledger import CostLine
from conveyor.orchestrator.shell.status_file import (
    build_status,
    load_status,
    note_operation,
    save_status,
)
from conveyor.orchestrator.snapshot import IssueView, Snapshot

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
AGO = NOW - timedelta(minutes=7)


def _job(issue: int, stage: str, *, alive: bool = True) -> RecordedJob:
    sessions = [
        SessionRecord(key="review.a", backend="claude", model="sonnet", status="replied",
                      cost_usd=0.2, last_context=1000, budget=60_000),
        SessionRecord(key="review.b", backend="codex", model="gpt", status="running",
                      cost_usd=None, last_context=42_000, budget=60_000),
    ]  # fmt: skip
    record = JobRecord(
        issue=issue, stage=stage, role="reader", lane="l", job_id=f"issue-{issue}-{stage}-x",
        pid=100 + issue, process_start=5, started_at=AGO, heartbeat=NOW, sessions=sessions,
    )  # fmt: skip
    return RecordedJob(Path(f"/jobs/{issue}"), record, alive)


def _status() -> dict[str, Any]:
    issues = (
        IssueView(1, AGO, Stage.REVIEW, pr=21),
        IssueView(2, AGO, Stage.IMPLEMENT),
        IssueView(3, AGO, Stage.IMPLEMENT),
        IssueView(4, AGO, Stage.FIX, stopped=StopCode.FIX_LOOP),
        IssueView(5, AGO, Stage.TRIAGE, waiting="needs-info"),
    )
    decisions = Decisions(
        holds=(Hold(3, Stage.IMPLEMENT, "paths overlap #2's writer"),),
        pauses=(Pause("tokens-per-hour", "900000 of 800000 in the last hour"),),
        merge_queue=(9,),
    )
    stops = {4: Stopped(control=StopCode.FIX_LOOP, reason="3 rounds", stage=Stage.FIX, at=AGO)}
    return build_status(
        now=NOW, repo="o/r", snapshot=Snapshot(lane="l", issues=issues), decisions=decisions,
        jobs=[_job(1, "review"), _job(2, "implement", alive=False)], stops=stops,
        today=CostLine("all", 3, 200_000, 10, 20, 30, 40, 1.25, 1), degraded={"label": 2},
        config_path=Path("/etc/conveyor/inventory.toml"), runner="/opt/venv/bin/conveyor",
        forge_url="https://github.com",
    )  # fmt: skip


def test_the_queue_lists_waiting_issues_by_stage_without_live_jobs_or_stops() -> None:
    """#1 has a live job, #4 is stopped, #5 waits for an answer: the queue is #2 and #3."""
    status = _status()
    assert status["queue"] == {"implement": [2, 3]}
    assert status["waiting"] == [{"issue": 5, "why": "needs-info"}]


def test_the_status_names_the_forge_s_pages_and_each_open_issue_s_pr() -> None:
    """`/pipeline` links issues and PRs from these: only #1 has a PR."""
    status = _status()
    assert status["forge_url"] == "https://github.com"
    assert status["prs"] == {"1": 21}


def test_live_jobs_show_session_context_cost_so_far_and_running_time() -> None:
    """A live job reports its current session, its context, known cost and unknown count."""
    (job,) = _status()["jobs"]
    assert job["issue"] == 1
    assert (job["session"], job["context"], job["context_budget"]) == ("review.b", 42_000, 60_000)
    assert (job["cost_usd"], job["unknown_cost_sessions"]) == (0.2, 1)
    assert job["running_seconds"] == 420


def test_holds_pauses_stops_and_money_are_reported_with_their_reasons() -> None:
    """Each hold and pause names its reason; a stop names its control and how to resume."""
    status = _status()
    assert status["holds"] == [
        {"issue": 3, "stage": "implement", "reason": "paths overlap #2's writer"}
    ]
    assert status["pauses"] == [
        {"kind": "tokens-per-hour", "reason": "900000 of 800000 in the last hour"}
    ]
    (stop,) = status["stopped"]
    assert (stop["issue"], stop["control"], stop["reason"]) == (4, "fix-loop", "3 rounds")
    resume = "/opt/venv/bin/conveyor resume --config /etc/conveyor/inventory.toml --issue 4"
    assert stop["resume"] == resume
    assert status["today"] == {
        "cost_usd": 1.25, "unknown_cost_sessions": 1, "sessions": 3, "tokens": 100,
        "launch_charges": 200_000,
    }  # fmt: skip
    assert status["degraded"] == {"label": 2}


def test_the_same_facts_give_the_same_document() -> None:
    """The builder is pure: two builds from the same inputs are equal."""
    assert _status() == _status()


def test_status_json_is_replaced_whole_and_reads_back(tmp_path: Path) -> None:
    """save then load round-trips, leaves no temporary file, and a missing file reads as None."""
    path = tmp_path / "status.json"
    assert load_status(path) is None
    save_status(path, _status())
    save_status(path, {**_status(), "queue": {}})
    assert load_status(path) == json.loads(json.dumps({**_status(), "queue": {}}))
    assert [p.name for p in tmp_path.iterdir()] == ["status.json"]


def test_a_streak_alerts_once_at_the_third_failure_and_a_success_clears_it() -> None:
    """Failures 1 and 2 are quiet, the 3rd alerts, the 4th does not; a success resets."""
    streaks: dict[str, int] = {}
    alerts = []
    for ok in (False, False, False, False, True, False):
        streaks, alert = note_operation(streaks, "label", ok)
        alerts.append(alert)
    assert alerts == [False, False, True, False, False, False]
    assert streaks == {"label": 1}
