"""The no-terminal mode: one plain line per event, each printed once, in order."""

from __future__ import annotations

import io
import json
from pathlib import Path

from rich.console import Console

from conveyor.cli.live.feed import Event, EventState, absorb, parse_event
from conveyor.cli.live.files import EventTail
from conveyor.cli.live.follow import LiveView
from conveyor.cli.live.lines import Printed, next_lines
from tests.unit.cli.live.recorded import NOW, copy_home


def event(second: int, issue: int, kind: str = "claimed", **fields: object) -> Event:
    """An event of `issue` at 12:00:`second`."""
    raw = {"ts": f"2026-11-29T12:00:{second:02d}.000Z", "issue": issue, "stage": "triage"}
    return parse_event({**raw, "job": f"j{issue}", "kind": kind, **fields})


def at(clock: str, issue: int, stage: str) -> dict[str, object]:
    """The head of a raw event of `issue` at `stage`, at `clock` on the recorded day."""
    return {"ts": f"2026-11-29T{clock}Z", "issue": issue, "stage": stage, "job": f"j{issue}"}


def append(path: Path, *raws: dict[str, object], tail: str = "") -> None:
    """Append events (one JSON line each) and then `tail` verbatim."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as out:
        out.writelines(json.dumps(raw) + "\n" for raw in raws)
        out.write(tail)


def test_a_batch_is_printed_in_time_order_one_line_each() -> None:
    """Events read from different issue files come out sorted by their time."""
    _, lines = next_lines(Printed(), [event(5, 2), event(1, 1), event(3, 3)])
    assert [line.split()[2] for line in lines] == ["#1", "#3", "#2"]
    assert lines[0] == "2026-11-29 12:00:01  #1 triage  claimed (lane ?)"


def test_an_event_seen_again_is_never_printed_twice() -> None:
    """Across batches and within one, a repeated event gives no second line."""
    printed, first = next_lines(Printed(), [event(1, 1), event(2, 2)])
    printed, second = next_lines(printed, [event(2, 2), event(3, 3), event(3, 3)])
    assert len(first) == 2
    assert [line.split()[2] for line in second] == ["#3"]


def test_stops_and_merges_name_their_control_and_pr() -> None:
    """A stop line names its control and reason; a merge line names its PR."""
    stop = event(1, 9, "stopped", code="budget", reason="issue budget spent")
    merge = event(2, 3, "merged", pr=18)
    _, lines = next_lines(Printed(), [stop, merge])
    assert lines[0].endswith("#9 triage  stopped by budget: issue budget spent")
    assert lines[1].endswith("#3 triage  merged PR #18")


def test_the_tail_reads_only_whole_lines_and_only_once(tmp_path: Path) -> None:
    """A line still being written is read when it is finished, and nothing is read twice."""
    path = tmp_path / "runs" / "issue-1" / "events.jsonl"
    append(path, {"issue": 1, "kind": "claimed"}, tail='{"issue": 1, "kind": "me')
    tail = EventTail(tmp_path / "runs")
    assert [e.kind for e in tail.read_new()] == ["claimed"]
    append(path, tail='rged", "pr": 4}\n')
    assert [(e.kind, e.fields.get("pr")) for e in tail.read_new()] == [("merged", 4)]
    assert tail.read_new() == []


def test_a_line_that_is_not_json_is_reported_with_its_place(tmp_path: Path) -> None:
    """A broken line becomes an `unreadable` event naming its file and line number."""
    path = tmp_path / "runs" / "issue-2" / "events.jsonl"
    append(path, {"issue": 2, "kind": "claimed"}, tail="not json\n")
    _, lines = next_lines(Printed(), EventTail(tmp_path / "runs").read_new())
    assert lines[-1].endswith(f"unreadable event line: {path} line 2")


def test_refreshes_print_each_new_event_once_in_order(tmp_path: Path) -> None:
    """The backlog first, then only what was appended since, across several refreshes."""
    home = copy_home(tmp_path)
    out = io.StringIO()
    view = LiveView(home, Console(file=out, width=80), backlog=2, clock=lambda: NOW)
    new_issue = home / "runs" / "issue-12" / "events.jsonl"
    append(new_issue, {**at("12:06:00", 12, "triage"), "kind": "claimed", "lane": "lane-a"})
    view.refresh()
    view.refresh()
    merged = {**at("12:07:00", 7, "merge"), "kind": "merged", "pr": 21}
    append(home / "runs" / "issue-7" / "events.jsonl", merged)
    view.refresh()
    lines = out.getvalue().splitlines()
    assert [line.split("  ", 2)[1:] for line in lines] == [
        ["#7 review", "session review-security-1 started"],
        ["#9 fix", "stopped by fix-loop: the same finding came back 3 times"],
        ["#12 triage", "claimed (lane lane-a)"],
        ["#7 merge", "merged PR #21"],
    ]


def test_a_rewritten_events_file_does_not_repeat_its_old_lines(tmp_path: Path) -> None:
    """When a file shrinks it is read again from the start, but only its new events print."""
    home = copy_home(tmp_path)
    out = io.StringIO()
    view = LiveView(home, Console(file=out, width=80), backlog=0, clock=lambda: NOW)
    path = home / "runs" / "issue-3" / "events.jsonl"
    old = path.read_text().splitlines()[0]
    path.write_text("")
    view.refresh()
    path.write_text(old + "\n" + json.dumps({"issue": 3, "kind": "released"}) + "\n")
    view.refresh()
    assert out.getvalue().splitlines() == ["-  #3  released after ?"]


SHA = "41969ef0a262b6fd0350abac84892402d7e10551"


def test_a_lane_taking_its_own_issue_back_is_not_a_claim_line_nor_a_recent_event() -> None:
    """Only the fresh claim shows; the lane's next jobs' claims (fresh false) are not repeated."""
    claims = [event(n, 4, "claimed", lane="lane-a", fresh=n == 1) for n in (1, 2, 3)]
    _, lines = next_lines(Printed(), claims)
    assert [line.split("  ", 2)[2] for line in lines] == ["claimed (lane lane-a)"]
    recent = absorb(EventState(), claims).recent
    assert [e.fields["fresh"] for e in recent] == [True]


def test_commits_show_as_seven_hex_digits() -> None:
    """Pushes, checks, merges, stacks and restacks name a commit by its first 7 digits."""
    shown = [
        event(1, 2, "pushed", sha=SHA, ref="refs/heads/agent/issue-2"),
        event(2, 2, "checks", head=SHA, passed=True, verify=True),
        event(3, 2, "merged", sha=SHA, tests_only=True),
        event(4, 3, "stacked", on=2, head=SHA),
        event(5, 3, "restacked", on=2, onto=SHA, outcome="clean"),
    ]
    _, lines = next_lines(Printed(), shown)
    for text in lines:
        assert "41969ef" in text
        assert "41969ef0" not in text
    assert lines[0].endswith("pushed 41969ef to agent/issue-2")
    assert lines[1].endswith("checks passed at 41969ef")


def test_the_backlog_counts_the_lines_printed_not_the_claims_left_out(tmp_path: Path) -> None:
    """Three claims taken back after the last two events: the backlog of 2 still prints 2."""
    home = copy_home(tmp_path)
    again = [
        {**at(f"12:09:0{n}", 7, "review"), "kind": "claimed", "lane": "lane-a", "fresh": False}
        for n in range(3)
    ]
    append(home / "runs" / "issue-7" / "events.jsonl", *again)
    out = io.StringIO()
    LiveView(home, Console(file=out, width=80), backlog=2, clock=lambda: NOW)
    lines = out.getvalue().splitlines()
    assert [line.split("  ", 2)[2] for line in lines] == [
        "session review-security-1 started",
        "stopped by fix-loop: the same finding came back 3 times",
    ]
