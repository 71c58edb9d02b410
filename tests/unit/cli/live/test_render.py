"""What a person sees in the live view, rendered to a 120-column recording console."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console

from conveyor.cli.live.feed import EventState, absorb, parse_event
from conveyor.cli.live.files import EventTail
from conveyor.cli.live.model import View, build_view
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
    assert row(text, "spent today $1.25", "of $20.00", "+1 of unknown cost")
    assert row(text, "123,456 tokens, 6 sessions")


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


def _busy_view(tmp_path: Path, events: int) -> View:
    """The recorded view with `events` more notable events of #7, one a second after 12:04."""
    home = copy_home(tmp_path)
    status = json.loads((home / "status.json").read_text())
    found = absorb(EventState(), EventTail(home / "runs").read_new())
    more = [
        parse_event({
            "ts": f"2026-11-29T12:04:{n:02d}Z", "issue": 7, "stage": "review", "job": "j7",
            "kind": "finding", "id": f"F{n}", "severity": "low",
            "title": f"finding number {n} " + "with a long title " * 6,
        })
        for n in range(events)
    ]  # fmt: skip
    return build_view(status, absorb(found, more), recorded_jobs(home), NOW, money_per_day=20.0)


def test_at_80_by_24_every_line_fits_and_the_key_lines_are_there(tmp_path: Path) -> None:
    """No line past 80 columns, no more rows than the terminal, the newest events last."""
    console = Console(record=True, width=80, height=24)
    view = _busy_view(tmp_path, 30)
    measure = lambda shown: len(console.render_lines(shown, pad=False))  # noqa: E731
    console.print(render(view, rows=24, measure=measure))
    lines = console.export_text().splitlines()
    assert max(len(line) for line in lines) <= 80
    assert len(lines) < 24
    text = "\n".join(lines)
    assert row(text, "acme/inventory", "lane-a")
    assert row(text, "progress:", "done", "in flight", "waiting", "of")
    assert row(text, "#9 stopped by fix-loop at fix")
    assert row(text, "resume: conveyor resume", "--issue 9")
    assert row(text, "#7", "review", "review-security-1", "30,000", "$0.42")
    assert row(text, "spent today $1.25")
    assert row(text, "12:04:29", "#7", "finding F29 (low): finding number 29")
    assert "12:04:00" not in text


def test_the_progress_line_counts_done_in_flight_waiting_and_stopped_of_all() -> None:
    """Every issue named is counted once: a job over a queue, a stop over a merge."""
    status = {
        "queue": {"triage": [11, 12]}, "merge_queue": [3], "stopped": [{"issue": 9}],
        "waiting": [{"issue": 5, "why": "an answer"}],
    }  # fmt: skip
    raws = [(1, "merged"), (2, "merged"), (6, "split"), (9, "merged"), (8, "claimed")]
    events = absorb(EventState(), [
        parse_event({"ts": f"2026-11-29T12:00:0{n}Z", "issue": n, "kind": kind, "stage": "x"})
        for n, kind in raws
    ])  # fmt: skip
    view = build_view(status, events, [], NOW)
    console = Console(record=True, width=80)
    console.print(render(view))
    text = console.export_text()
    assert row(text, "progress: 3 done · 0 in flight · 5 waiting · 1 stopped of 9")
