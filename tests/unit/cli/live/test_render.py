"""What a person sees in the live view, rendered to a 120-column recording console."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console

from conveyor.cli.live.feed import EventState, absorb
from conveyor.cli.live.files import EventTail
from conveyor.cli.live.model import build_view
from conveyor.cli.live.render import render
from tests.unit.cli.live.recorded import NOW, copy_home, recorded_jobs


def screen(tmp_path: Path) -> str:
    """The recorded home's view at NOW as plain text, 120 columns wide."""
    home = copy_home(tmp_path)
    status = json.loads((home / "status.json").read_text())
    events = absorb(EventState(), EventTail(home / "runs").read_new())
    view = build_view(status, events, recorded_jobs(home), NOW, money_per_day=20.0)
    console = Console(record=True, width=120)
    console.print(render(view))
    return console.export_text()


def row(text: str, *cells: str) -> bool:
    """Whether one line of `text` holds every cell, in order."""
    for line in text.splitlines():
        at = 0
        for cell in cells:
            at = line.find(cell, at)
            if at < 0:
                break
            at += len(cell)
        else:
            return True
    return False


def test_the_header_names_the_repository_and_the_age_of_the_status(tmp_path: Path) -> None:
    """The person sees which repository and lane, and that status.json is 10 seconds old."""
    text = screen(tmp_path)
    assert row(text, "acme/inventory", "lane-a", "0m10s ago")


def test_the_queue_shows_each_stage_with_its_issues(tmp_path: Path) -> None:
    """Every queued issue number appears on its stage's row."""
    text = screen(tmp_path)
    assert row(text, "triage", "#11 #12")
    assert row(text, "implement", "#4")
    assert row(text, "merge queue, in order: #7 #3")


def test_holds_and_stops_show_their_reasons_and_controls(tmp_path: Path) -> None:
    """A hold says at which stage and why; a stop names its control and how to resume."""
    text = screen(tmp_path)
    assert row(text, "#4 held at implement: touches the same files as #7")
    assert row(text, "#5 waiting: waiting for an answer")
    assert row(text, "#9 stopped by fix-loop at fix: the same finding came back 3 times")
    assert row(text, "resume: conveyor resume", "--issue 9")


def test_running_jobs_show_issue_stage_session_tokens_and_cost(tmp_path: Path) -> None:
    """The review job of #7 is shown with its open session, 30,000 tokens and $0.42."""
    text = screen(tmp_path)
    assert row(text, "#7", "review", "review-security-1", "-", "30,000", "$0.42", "4m10s")


def test_recent_events_show_claims_findings_stops_and_merges(tmp_path: Path) -> None:
    """Each notable event is one row with its time, issue and what happened."""
    text = screen(tmp_path)
    assert row(text, "11:50:00", "#3", "merged PR #18")
    assert row(text, "12:00:00", "#7", "claimed")
    assert row(text, "12:02:01", "#7", "finding F1 (high): restock ignores negative counts")
    assert row(text, "12:03:30", "#9", "stopped by fix-loop")


def test_spending_shows_cost_unknown_sessions_budget_and_tokens(tmp_path: Path) -> None:
    """Today's dollars, the sessions of unknown cost, the daily budget and the tokens."""
    text = screen(tmp_path)
    assert row(text, "Spent today: $1.25", "+1 session", "of $20.00 daily budget")
    assert row(text, "123,456 tokens in 6 sessions")


def test_an_empty_home_says_no_status_yet_and_nothing_running() -> None:
    """Before the orchestrator's first pass, the view says so instead of showing blanks."""
    console = Console(record=True, width=120)
    console.print(render(build_view(None, EventState(), [], NOW)))
    text = console.export_text()
    assert "no status.json yet" in text
    assert "no job running" in text
    assert "nothing queued" in text


def test_a_stale_or_broken_status_file_is_said_in_the_header() -> None:
    """An old status.json warns that the orchestrator may have stopped; a broken one is named."""
    old = {"repo": "acme/inventory", "written_at": "2026-11-29T11:00:00+00:00", "queue": [1]}
    console = Console(record=True, width=120)
    console.print(render(build_view(old, EventState(), [], NOW)))
    text = console.export_text()
    assert row(text, "status written 1h05m ago", "stale: is the orchestrator running?")
    assert row(text, "status.json has an unexpected shape: queue: expected a table")
