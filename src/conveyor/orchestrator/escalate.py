"""Escalation: each stop the pipeline did not expect is reported once while its label stays."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from conveyor.core.stops import StopCode
from conveyor.orchestrator.decisions import Escalate
from conveyor.orchestrator.memory import WatchMemory
from conveyor.orchestrator.snapshot import Snapshot

UNEXPECTED = "unexpected-stop"


def _current_jobs(snapshot: Snapshot) -> dict[int, datetime]:
    """The start time of each issue's newest recorded job."""
    newest: dict[int, datetime] = {}
    for job in snapshot.jobs:
        if job.issue not in newest or job.started_at > newest[job.issue]:
            newest[job.issue] = job.started_at
    return newest


def escalate(snapshot: Snapshot, memory: WatchMemory) -> tuple[tuple[Escalate, ...], WatchMemory]:
    """New escalations and the memory that remembers them (ESC-1..3).

    The job stop is where the rules end and is expected. A budget stop is
    expected only when the watchdog's budget rule made it for the issue's
    current job; every other stop escalates as `unexpected-stop`, once for as
    long as its label stays.
    """
    current = _current_jobs(snapshot)
    own_budget = {
        (stop.issue, stop.job_started_at)
        for stop in memory.stops
        if stop.control is StopCode.BUDGET and not stop.released
    }
    before = set(memory.escalated)
    kept: list[tuple[int, StopCode]] = []
    found: list[Escalate] = []
    for issue in sorted(snapshot.issues, key=lambda issue: issue.number):
        control = issue.stopped
        if control is None or control is StopCode.JOB:
            continue
        started = current.get(issue.number)
        if control is StopCode.BUDGET and (issue.number, started) in own_budget:
            continue
        key = (issue.number, control)
        kept.append(key)
        if key not in before:
            reason = f"stopped by {control.control.name} ({control.label}) at {issue.stage.value}"
            found.append(Escalate(issue.number, control, UNEXPECTED, reason))
    return tuple(found), replace(memory, escalated=tuple(kept))
