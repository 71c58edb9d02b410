"""`conveyor status --issue N`: the issue's events as lines a person reads, from a demo run."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from conveyor.cli.status_issue import LAST_EVENTS, issue_lines, issue_report

RECORDED = Path(__file__).resolve().parents[2] / "data" / "status_issue" / "issue-2.events.jsonl"
# `2026-12-04 17:55:50  #2 merge  what happened`: the time, the issue and stage, the words.
_EVENT_LINE = re.compile(r"^  \d{4}-\d\d-\d\d \d\d:\d\d:\d\d  #2 [a-z]+  [a-z]")


def _lines(tmp_path: Path) -> list[str]:
    """The lines of issue 2 of a recorded demo run (merged after a fix round)."""
    run_dir = tmp_path / "runs" / "issue-2"
    run_dir.mkdir(parents=True)
    shutil.copy(RECORDED, run_dir / "events.jsonl")
    return issue_lines(issue_report(tmp_path, 2, None, None), None)


def test_each_event_is_one_readable_line_with_time_issue_stage_and_words(tmp_path: Path) -> None:
    """No JSON, no field=value pairs, no 40-digit commits: the last events as sentences."""
    lines = _lines(tmp_path)
    start = lines.index(f"last {LAST_EVENTS} events:")
    events = lines[start + 1 :]
    assert len(events) == LAST_EVENTS
    for text in events:
        assert _EVENT_LINE.match(text), text
        assert not re.search(r"[{}\"=]|[0-9a-f]{8}", text), text
    assert events[-1].endswith("#2 merge  merged as 005d5a2 (tests only)")
    assert any(text.endswith("checks passed at 2c1f24b") for text in events)


def test_a_lanes_claims_of_its_own_issue_are_not_repeated_at_every_stage(tmp_path: Path) -> None:
    """The recorded run claimed #2 once and took it back nine times: no line says claimed."""
    events = _lines(tmp_path)
    assert not any("claimed" in text for text in events)
