"""An issue's timeline drawn: one SVG rect per bar, every label escaped; empty and unfinished."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from conveyor.core.timeline import Bar, Timeline, build_timeline, render_svg, render_text

T0 = datetime(2026, 12, 4, 12, 0, 0, tzinfo=UTC)


def at(seconds: float) -> datetime:
    """T0 plus `seconds`."""
    return T0 + timedelta(seconds=seconds)


def test_the_svg_has_one_rect_per_bar_and_escapes_every_label() -> None:
    """A label with markup and a control character is text in the SVG, never markup."""
    hostile = "<script>alert(1)</script>\x1b[31m"
    timeline = Timeline((
        Bar("job", "spec", at(0), at(10), "j"),
        Bar("session", hostile, at(1), at(3), "j", "replied"),
        Bar("command", "test", at(4), at(9), "j", "failed"),
    ))  # fmt: skip
    svg = render_svg(timeline)
    assert svg.count("<rect ") == 3
    assert re.findall(r'data-kind="(\w+)"', svg) == ["job", "session", "command"]
    assert "<script>" not in svg
    assert "\x1b" not in svg
    assert "&lt;script&gt;alert(1)&lt;/script&gt;\\x1b[31m" in svg


def test_no_jobs_draw_nothing() -> None:
    """An issue no job ran for has no bars: a line saying so, and no SVG."""
    empty = build_timeline([], [], {})
    assert render_text(empty) == ["No jobs ran for this issue yet."]
    assert render_svg(empty) == ""


def test_an_unfinished_job_ends_at_its_heartbeat_and_a_broken_record_is_left_out() -> None:
    """A running job is drawn to its last heartbeat; a record without times is no bar."""
    running = {"stage": "implement", "job_id": "j", "started_at": at(0).isoformat(),
               "heartbeat": at(5).isoformat()}  # fmt: skip
    timeline = build_timeline([running, {"stage": "x"}], [], {"j": [{"name": "test"}]})
    assert [(b.label, b.seconds, b.outcome) for b in timeline.bars] == [
        ("implement", 5.0, "running")
    ]
