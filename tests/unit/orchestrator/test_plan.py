"""One tick's rules together: the watchdog first, escalation, then the scheduler (ORC-12)."""

from __future__ import annotations

from conveyor.core.state import Stage
from conveyor.core.stops import StopCode
from conveyor.orchestrator.memory import WatchMemory
from conveyor.orchestrator.plan import plan

from .factory import NOW, config, issue, job, snapshot


def test_a_tick_resumes_escalates_starts_and_holds_with_one_log_line_each() -> None:
    """Resume #1, escalate #2's conflict stop, start #3, hold #4 on max-jobs; memory remembers."""
    snap = snapshot(
        issue(1, Stage.REVIEW),
        issue(2, stopped=StopCode.CONFLICT),
        issue(3),
        issue(4),
        jobs=(job(1, Stage.REVIEW, alive=False),),
    )
    result = plan(snap, config(max_jobs=2), NOW, WatchMemory())
    assert [(d.issue, type(d).__name__) for d in result.watchdog] == [(1, "StartJob")]
    assert [e.issue for e in result.escalations] == [2]
    assert [s.issue for s in result.schedule.starts] == [3]
    assert [(h.issue, h.reason) for h in result.schedule.holds] == [(4, "max-jobs 2/2")]
    assert result.memory.resumes == ((1, 1),)
    assert result.memory.escalated == ((2, StopCode.CONFLICT),)
    lines = result.log_lines()
    assert [line.split(" ", 2)[:2] for line in lines] == [
        ["resume", "#1"],
        ["escalate", "#2"],
        ["start", "#3"],
        ["hold", "#4"],
    ]


def test_the_next_tick_does_not_escalate_the_same_stop_again() -> None:
    """The memory from one plan keeps the next from repeating the escalation."""
    snap = snapshot(issue(2, stopped=StopCode.CONFLICT))
    first = plan(snap, config(), NOW, WatchMemory())
    assert plan(snap, config(), NOW, first.memory).escalations == ()
