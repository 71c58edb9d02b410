"""Properties of the scheduler over generated snapshots (caps, overlap, liveness, determinism)."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from conveyor.core.config import Config
from conveyor.core.state import FINAL, Stage
from conveyor.orchestrator.gate import READERS, WRITERS, stage_cap
from conveyor.orchestrator.overlap import compile_globs, overlaps
from conveyor.orchestrator.schedule import schedule
from conveyor.orchestrator.snapshot import JobView, Snapshot

from .factory import NOW
from .strategies import configs, snapshots


def live(snap: Snapshot) -> list[JobView]:
    """The jobs whose process is alive."""
    return [job for job in snap.jobs if job.alive]


@given(snapshots(), configs)
def test_the_scheduler_never_exceeds_max_jobs_or_a_stage_cap(snap: Snapshot, conf: Config) -> None:
    """Starts never push the running jobs past max_jobs, nor any stage past its cap."""
    decisions = schedule(snap, conf, NOW)
    running = len(live(snap))
    assert len(decisions.starts) <= max(0, conf.limits.max_jobs - running)
    before = Counter(job.stage for job in live(snap))
    added = Counter(start.stage for start in decisions.starts)
    for stage, count in added.items():
        assert before[stage] + count <= stage_cap(stage, conf.limits)


@given(snapshots(), configs)
def test_the_scheduler_never_starts_two_overlapping_writers(snap: Snapshot, conf: Config) -> None:
    """No started writer overlaps a live writer or another started writer."""
    decisions = schedule(snap, conf, NOW)
    by_number = snap.issue_map()
    live_writers = [
        compile_globs(by_number[job.issue].writer_paths)
        for job in live(snap)
        if job.stage in WRITERS
    ]
    started = [
        compile_globs(by_number[s.issue].writer_paths)
        for s in decisions.starts
        if s.stage in WRITERS
    ]
    for index, globs in enumerate(started):
        assert not any(overlaps(globs, other) for other in live_writers)
        assert not any(overlaps(globs, other) for other in started[index + 1 :])


@given(snapshots(), configs)
def test_the_scheduler_never_starts_a_job_for_an_issue_with_a_live_one(
    snap: Snapshot, conf: Config
) -> None:
    """No start for an issue whose job is alive, and never two starts for one issue."""
    decisions = schedule(snap, conf, NOW)
    numbers = [start.issue for start in decisions.starts]
    assert len(numbers) == len(set(numbers))
    assert not set(numbers) & {job.issue for job in live(snap)}


@given(snapshots(), configs, st.randoms(use_true_random=False))
def test_the_same_snapshot_gives_the_same_decisions_in_any_input_order(
    snap: Snapshot, conf: Config, rng: random.Random
) -> None:
    """Decisions depend on the snapshot's content only, not on the order it lists things in."""
    shuffled_issues, shuffled_jobs = list(snap.issues), list(snap.jobs)
    rng.shuffle(shuffled_issues)
    rng.shuffle(shuffled_jobs)
    other = Snapshot(
        lane=snap.lane, issues=tuple(shuffled_issues), jobs=tuple(shuffled_jobs), ledger=snap.ledger
    )
    assert schedule(snap, conf, NOW) == schedule(snap, conf, NOW) == schedule(other, conf, NOW)


@given(snapshots(), configs)
def test_every_issue_is_started_held_with_a_reason_or_left_alone_for_a_cause(
    snap: Snapshot, conf: Config
) -> None:
    """Each issue gets at most one decision; a hold always has a reason; the rest rest or run."""
    decisions = schedule(snap, conf, NOW)
    decided = [s.issue for s in decisions.starts] + [h.issue for h in decisions.holds]
    assert len(decided) == len(set(decided))
    assert all(hold.reason for hold in decisions.holds)
    live_issues = {job.issue for job in snap.jobs if job.alive}
    owned = {
        job.issue
        for job in snap.jobs
        if not job.alive and not job.finished and job.stage == snap.issue_map()[job.issue].stage
    }
    for item in snap.issues:
        if item.number not in decided:
            resting = item.stopped is not None or item.stage in FINAL
            assert resting or item.number in live_issues | owned


@given(snapshots(), configs)
def test_started_launch_charges_stay_within_the_hourly_limit(snap: Snapshot, conf: Config) -> None:
    """With tokens_per_hour on, this hour's charges plus the starts' never pass it."""
    decisions = schedule(snap, conf, NOW)
    limit = conf.limits.tokens_per_hour
    if limit and decisions.starts:
        assert snap.ledger.charges_last_hour + sum(s.charge for s in decisions.starts) <= limit


def test_readers_and_writers_partition_the_job_stages() -> None:
    """Every stage but merge and done is a reader or a writer, never both (a person's PR's
    review is scheduled by its own rule, after the issues: `orchestrator/people.py`)."""
    assert READERS.isdisjoint(WRITERS)
    assert set(Stage) - READERS - WRITERS == {Stage.MERGE, *FINAL, Stage.PR_REVIEW}
