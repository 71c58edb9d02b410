"""`conveyor status` and `conveyor cost`: what a person reads, from local files only."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conveyor.cli.app import app
from conveyor.core.state import IssueState, Stage, Stopped
from conveyor.core.stops import StopCode
from conveyor.forge.types import Issue
from conveyor.job.events import EVENTS_FILE, EventLog
from conveyor.orchestrator.decisions import Decisions, Hold
from conveyor.orchestrator.shell.ledger import LEDGER_FILE, CostLine, LedgerDb, LedgerRow
from conveyor.orchestrator.shell.snapshot_store import CACHE_FILE, CachedIssue, SnapshotStore
from conveyor.orchestrator.shell.status_file import STATUS_FILE, build_status, save_status
from conveyor.orchestrator.snapshot import IssueView, Snapshot

NOW = datetime.now(UTC).replace(microsecond=0)
STOP = Stopped(control=StopCode.FIX_LOOP, reason="two fix rounds left findings", stage=Stage.FIX,
               at=NOW)  # fmt: skip
runner = CliRunner()


def _issue(number: int, title: str) -> Issue:
    return Issue(number, 1000 + number, f"I_{number}", title, "body", "open", None, "owner",
                 ("agent:stopped-fix-loop",), NOW, NOW, f"http://x/{number}")  # fmt: skip


@pytest.fixture
def config(tmp_path: Path) -> Path:
    """A config whose home holds a status.json, a snapshot cache, events and a ledger."""
    home = tmp_path / "home"
    path = tmp_path / "conveyor.toml"
    path.write_text(
        f'repo = "o/r"\nhome = "{home}"\nallowed_users = ["owner"]\n'
        '[account]\nlogin = "bot"\ntoken_env = "T"\n[commands]\ntest = "true"\n'
    )
    repo_home = home / "o__r"
    snapshot = Snapshot(
        lane="l",
        issues=(IssueView(4, NOW, Stage.FIX, stopped=StopCode.FIX_LOOP),
                IssueView(6, NOW, Stage.IMPLEMENT)),
    )  # fmt: skip
    decisions = Decisions(holds=(Hold(6, Stage.IMPLEMENT, "tokens per hour spent"),))
    status = build_status(
        now=NOW, repo="o/r", snapshot=snapshot, decisions=decisions, jobs=[], stops={4: STOP},
        today=CostLine("all", 2, 0, 0, 0, 0, 0, 0.5, 1), degraded={"label": 3},
        config_path=path,
    )  # fmt: skip
    save_status(repo_home / STATUS_FILE, status)
    state = IssueState(stage=Stage.FIX, pr=12, stopped=STOP)
    with SnapshotStore(repo_home / CACHE_FILE, "bot") as store:
        store.replace("etag", [CachedIssue(_issue(4, "Fix the parser"), "c-etag", state, 77)])
    events = EventLog(repo_home / "runs" / "issue-4" / EVENTS_FILE, issue=4, stage="fix",
                      job="j", now=lambda: NOW)  # fmt: skip
    for kind in ("claimed", "session-started", "stopped"):
        events.emit(kind)
    with LedgerDb(repo_home / LEDGER_FILE) as ledger:
        ledger.append([
            LedgerRow("j1", "a", 4, "fix", "writer", "claude", "sonnet", 100_000, 10, 5, 0, 0,
                      0.5, NOW - timedelta(hours=2), NOW),
            LedgerRow("j2", "b", 6, "review", "reader", "codex", "gpt", 60_000, 20, 5, 0, 0,
                      None, NOW - timedelta(hours=1), NOW),
            LedgerRow("j0", "c", 4, "triage", "reader", "claude", "haiku", 50_000, 1, 1, 0, 0,
                      9.0, NOW - timedelta(days=3), NOW),
        ])  # fmt: skip
    return path


def _run(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_status_shows_holds_stops_with_resume_streaks_and_spending(config: Path) -> None:
    """The overview names each hold's reason, each stop's control and resume, and today's money."""
    shown = _run("status", "--config", str(config))
    assert "hold #6 implement: tokens per hour spent" in shown
    assert "stopped #4 fix-loop: two fix rounds left findings" in shown
    assert f"conveyor resume --config {config} --issue 4" in shown
    assert "degraded label: failed 3 times in a row" in shown
    assert "today: $0.50 (+1 sessions of unknown cost)" in shown


def test_status_json_is_the_status_file(config: Path) -> None:
    """`--json` prints status.json's document."""
    shown = json.loads(_run("status", "--config", str(config), "--json"))
    assert shown["queue"] == {"implement": [6]}
    assert shown["stopped"][0]["control"] == "fix-loop"


def test_status_of_one_issue_shows_state_events_and_how_to_resume(config: Path) -> None:
    """`--issue 4` gives the decoded state, the last events and the stop with its commands."""
    shown = _run("status", "--config", str(config), "--issue", "4")
    assert "#4 Fix the parser" in shown
    assert "stage fix, PR #12" in shown
    assert "stopped by fix-loop at fix: two fix rounds left findings" in shown
    assert f"conveyor resume --config {config} --issue 4" in shown
    assert f"drive --config {config} --issue 4 --take-stopped" in shown
    assert "last 3 events:" in shown
    report = json.loads(_run("status", "--config", str(config), "--issue", "4", "--json"))
    assert report["state"]["pr"] == 12
    assert [e["kind"] for e in report["events"]] == ["claimed", "session-started", "stopped"]


def test_status_of_one_held_issue_names_the_hold(config: Path) -> None:
    """An issue the scheduler holds shows the hold's reason."""
    report = json.loads(_run("status", "--config", str(config), "--issue", "6", "--json"))
    assert report["hold"]["reason"] == "tokens per hour spent"
    assert report["state"] is None


def test_status_before_any_tick_says_so(tmp_path: Path, config: Path) -> None:
    """Without status.json the command explains where it comes from instead of failing."""
    (tmp_path / "home" / "o__r" / STATUS_FILE).unlink()
    assert "no status yet" in _run("status", "--config", str(config))


def test_cost_groups_sessions_and_shows_unknown_costs_apart(config: Path) -> None:
    """`--by model --since 24h` leaves out the old session; codex's cost is unknown, not 0."""
    shown = json.loads(_run("cost", "--config", str(config), "--by", "model", "--json"))
    by_model = {line["key"]: line for line in shown["lines"]}
    assert set(by_model) == {"gpt", "sonnet"}
    assert (by_model["gpt"]["cost_usd"], by_model["gpt"]["unknown_cost_sessions"]) == (0.0, 1)
    total = json.loads(_run("cost", "--config", str(config), "--since", "7d", "--json"))
    assert total["lines"][0]["sessions"] == 3
    assert total["lines"][0]["cost_usd"] == 9.5
    table = _run("cost", "--config", str(config), "--by", "issue")
    assert "+1 unknown" in table


@pytest.mark.parametrize(
    ("args", "message"),
    [(("--since", "yesterday"), "--since: expected"), (("--by", "color"), "--by: expected one of")],
)
def test_cost_refuses_bad_options_naming_them(
    config: Path, args: tuple[str, ...], message: str
) -> None:
    """A bad --since or --by exits 2 with a line naming the option and what it expects."""
    result = runner.invoke(app, ["cost", "--config", str(config), *args])
    assert result.exit_code == 2
    assert message in result.output


def test_cost_by_issue_is_sorted_by_number_with_a_totals_row(config: Path) -> None:
    """Issues 2, 4, 6, 11 in that order (not 11 before 2), then one row summing them all."""
    repo_home = config.parent / "home" / "o__r"
    with LedgerDb(repo_home / LEDGER_FILE) as ledger:
        ledger.append([
            LedgerRow(f"j{n}", "s", n, "triage", "reader", "claude", "sonnet", 1_000, n, 1, 0, 0,
                      0.25, NOW - timedelta(minutes=30), NOW)
            for n in (11, 2)
        ])  # fmt: skip
    table = _run("cost", "--config", str(config), "--by", "issue").splitlines()
    keys = [line.split()[0] for line in table[2:] if not line.startswith("-")]
    assert keys == ["2", "4", "6", "11", "total"]
    total = table[-1].split()
    assert (total[1], total[2]) == ("4", str(10 + 20 + 11 + 2))
    shown = json.loads(_run("cost", "--config", str(config), "--by", "issue", "--json"))
    assert [line["key"] for line in shown["lines"]] == ["2", "4", "6", "11"]
    assert (shown["total"]["sessions"], shown["total"]["cost_usd"]) == (4, 1.0)
