"""Properties of the watchdog, alone and followed by the scheduler in one tick (WD-*, ORC-12)."""

from __future__ import annotations

from collections import Counter

from hypothesis import given

from conveyor.core.config import Config
from conveyor.orchestrator.decisions import StartJob, Steer, StopIssue, Terminate
from conveyor.orchestrator.gate import stage_cap
from conveyor.orchestrator.memory import WatchMemory
from conveyor.orchestrator.schedule import schedule
from conveyor.orchestrator.snapshot import Snapshot
from conveyor.orchestrator.watchdog import watch

from .factory import NOW
from .strategies import configs, snapshots


@given(snapshots(), configs)
def test_the_watchdog_decides_at_most_once_per_issue_and_deterministically(
    snap: Snapshot, conf: Config
) -> None:
    """One decision per issue at most, and the same inputs give the same result."""
    result = watch(snap, conf, NOW, WatchMemory())
    issues = [decision.issue for decision in result.decisions]
    assert len(issues) == len(set(issues))
    assert watch(snap, conf, NOW, WatchMemory()) == result


@given(snapshots(), configs)
def test_sigterm_goes_only_to_live_jobs_and_stops_only_follow_an_exit(
    snap: Snapshot, conf: Config
) -> None:
    """A live job is never stopped under its own feet: it is signalled, and stopped once gone."""
    alive = {job.issue for job in snap.jobs if job.alive}
    result = watch(snap, conf, NOW, WatchMemory())
    for decision in result.decisions:
        if isinstance(decision, Terminate):
            assert decision.issue in alive
        if isinstance(decision, StopIssue | StartJob):
            assert decision.issue not in alive


@given(snapshots(), configs)
def test_a_tick_never_exceeds_the_caps_with_resumes_and_starts_together(
    snap: Snapshot, conf: Config
) -> None:
    """Resumes and the scheduler's starts share max_jobs and the stage caps, one job per issue."""
    result = watch(snap, conf, NOW, WatchMemory())
    decisions = schedule(snap, conf, NOW, gate=result.gate)
    resumed = [d for d in result.decisions if isinstance(d, StartJob)]
    starts = [*resumed, *decisions.starts]
    live = [job for job in snap.jobs if job.alive]
    assert len(starts) <= max(0, conf.limits.max_jobs - len(live))
    added = Counter(start.stage for start in starts)
    before = Counter(job.stage for job in live)
    for stage, count in added.items():
        assert before[stage] + count <= stage_cap(stage, conf.limits)
    numbers = [start.issue for start in starts]
    handled = {d.issue for d in result.decisions if not isinstance(d, Steer)}
    assert len(numbers) == len(set(numbers))
    assert not {start.issue for start in decisions.starts} & handled


@given(snapshots(), configs)
def test_the_next_tick_repeats_no_signal_or_steer_and_resumes_stay_bounded(
    snap: Snapshot, conf: Config
) -> None:
    """With the memory carried over, a job is signalled and steered once; resumes never pass max."""
    first = watch(snap, conf, NOW, WatchMemory())
    second = watch(snap, conf, NOW, first.memory)
    assert not [d for d in second.decisions if isinstance(d, Terminate | Steer)]
    for _, count in (*first.memory.resumes, *second.memory.resumes):
        assert count <= conf.limits.max_resumes
