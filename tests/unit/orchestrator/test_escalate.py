"""Escalation: stops the pipeline did not expect are reported once each (ESC-1..3)."""

from __future__ import annotations

from datetime import timedelta

from conveyor.core.state import Stage
from conveyor.core.stops import StopCode
from conveyor.orchestrator.escalate import UNEXPECTED, escalate
from conveyor.orchestrator.memory import WatchdogStop, WatchMemory

from .factory import issue, job, snapshot


def test_an_unexpected_stop_is_escalated_once_while_its_label_stays() -> None:
    """A conflict stop escalates on the first pass and not on the next."""
    snap = snapshot(issue(4, Stage.SYNC, stopped=StopCode.CONFLICT))
    first, memory = escalate(snap, WatchMemory())
    assert [(e.issue, e.control, e.kind) for e in first] == [(4, StopCode.CONFLICT, UNEXPECTED)]
    again, _ = escalate(snap, memory)
    assert again == ()


def test_a_stop_that_comes_back_after_its_label_was_removed_escalates_again() -> None:
    """Removing the label forgets the escalation, so the next stop is reported anew."""
    stopped = snapshot(issue(4, stopped=StopCode.ERROR))
    _, memory = escalate(stopped, WatchMemory())
    _, cleared = escalate(snapshot(issue(4)), memory)
    assert cleared.escalated == ()
    again, _ = escalate(stopped, cleared)
    assert [e.issue for e in again] == [4]


def test_the_job_stop_is_expected_and_never_escalated() -> None:
    """`agent:stopped-job` is where the watchdog's rules end."""
    found, memory = escalate(snapshot(issue(4, stopped=StopCode.JOB)), WatchMemory())
    assert (found, memory.escalated) == ((), ())


def test_a_budget_stop_the_watchdog_made_for_the_current_job_is_not_escalated() -> None:
    """The watchdog's own budget stop of this job (same start time) is expected."""
    record = job(4, Stage.SPEC, alive=False)
    memory = WatchMemory(stops=(WatchdogStop(4, record.started_at, StopCode.BUDGET, "over"),))
    snap = snapshot(issue(4, Stage.SPEC, stopped=StopCode.BUDGET), jobs=(record,))
    found, _ = escalate(snap, memory)
    assert found == ()


def test_any_other_budget_stop_is_escalated() -> None:
    """A budget stop after a later job than the one the watchdog stopped escalates."""
    record = job(4, Stage.SPEC, alive=False)
    earlier = record.started_at - timedelta(hours=1)
    memory = WatchMemory(stops=(WatchdogStop(4, earlier, StopCode.BUDGET, "over"),))
    snap = snapshot(issue(4, Stage.SPEC, stopped=StopCode.BUDGET), jobs=(record,))
    found, _ = escalate(snap, memory)
    assert [(e.issue, e.control) for e in found] == [(4, StopCode.BUDGET)]


def test_escalations_come_in_issue_order_and_name_the_control() -> None:
    """Several stops: one escalation each, by issue number, each naming its label."""
    snap = snapshot(
        issue(9, stopped=StopCode.USER_HARM), issue(2, Stage.MERGE, stopped=StopCode.MERGE_REFUSED)
    )
    found, _ = escalate(snap, WatchMemory())
    assert [e.issue for e in found] == [2, 9]
    assert "agent:stopped-merge-refused" in found[0].reason
