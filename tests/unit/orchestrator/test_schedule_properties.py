"""Properties of the scheduler over generated snapshots (caps, overlap, liveness, determinism)."""

from __future__ import annotations

import random
from collections import Counter
from datetime import timedelta

from hypothesis import given
from hypothesis import strategies as st

from conveyor.core.config import Config
from conveyor.core.state import Stage
from conveyor.core.stops import StopCode
from conveyor.orchestrator.gate import READERS, WRITERS, stage_cap
from conveyor.orchestrator.overlap import compile_globs, overlaps
from conveyor.orchestrator.schedule import schedule
from conveyor.orchestrator.snapshot import IssueView, JobRole, JobView, Lease, Ledger, Snapshot

from .factory import LANE, NOW, config

GLOBS = ("src/**", "src/app/*.py", "src/lib/x.py", "docs/*.md", "tests/**", "*.toml", "src/*.ts")


STAGES = list(Stage)
CROWDED = (Stage.TRIAGE, Stage.REVIEW, Stage.IMPLEMENT, Stage.FIX)


class Digits:
    """Reads small choices off one drawn integer: one draw per issue keeps generation fast."""

    def __init__(self, value: int) -> None:
        # Spread small draws (which hypothesis favours) over every choice.
        self.value = (value * 0x9E3779B97F4A7C15) % 2**64

    def take(self, base: int) -> int:
        """The next choice in range(base)."""
        self.value, digit = divmod(self.value, base)
        return digit


def decode(value: int, number: int, count: int) -> tuple[IssueView, JobView | None]:
    """One open issue (any stage, some paths, maybe an after mark, a lease, a stop) and its job."""
    d = Digits(value)
    # Half the issues crowd into four stages, so stage caps are reached often.
    pick = d.take(2 * len(STAGES))
    stage = STAGES[pick] if pick < len(STAGES) else CROWDED[pick % len(CROWDED)]
    where = GLOBS[d.take(len(GLOBS) + 1) :][:1]
    changed = GLOBS[d.take(len(GLOBS) * 2) :][:1]
    after = d.take(8 * count + 8)
    leases = (Lease(LANE, NOW), Lease("lane-b", NOW + timedelta(hours=1)))
    lease = leases[lease_pick] if (lease_pick := d.take(8)) < len(leases) else None
    item = IssueView(
        number=number,
        created_at=NOW - timedelta(minutes=d.take(50)),
        stage=stage,
        where=where,
        changed_paths=changed,
        after=after if 0 < after <= count + 2 else None,
        lease=lease,
        stopped=StopCode.CONFLICT if d.take(10) == 0 else None,
        waiting="asking" if d.take(12) == 0 else None,
    )
    if d.take(6) != 0:
        return item, None
    record = JobView(
        issue=number,
        stage=(stage, Stage.IMPLEMENT, Stage.REVIEW)[d.take(3)],
        role=JobRole.WRITER,
        started_at=NOW - timedelta(minutes=5),
        pid=100 + number,
        alive=d.take(2) == 0,
        finished=d.take(2) == 0,
    )
    return item, record


@st.composite
def snapshots(draw: st.DrawFn) -> Snapshot:
    """Up to 20 issues, some with a recorded job (alive or not), and a ledger."""
    values = draw(st.lists(st.integers(0, 2**48), max_size=20))
    pairs = [decode(value, n, len(values)) for n, value in enumerate(values, start=1)]
    return Snapshot(
        lane=LANE,
        issues=tuple(item for item, _ in pairs),
        jobs=tuple(record for _, record in pairs if record is not None),
        ledger=Ledger(charges_last_hour=draw(st.sampled_from([0, 100_000, 900_000]))),
    )


configs = st.builds(
    lambda jobs, readers, writers, per_hour: config(
        max_jobs=jobs,
        readers_per_stage=readers,
        writers_per_stage=writers,
        tokens_per_hour=per_hour,
    ),
    st.integers(1, 8),
    st.integers(1, 2),
    st.integers(1, 2),
    st.sampled_from([0, 400_000, 1_000_000]),
)


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
            resting = item.stopped is not None or item.stage is Stage.DONE
            assert resting or item.number in live_issues | owned


@given(snapshots(), configs)
def test_started_launch_charges_stay_within_the_hourly_limit(snap: Snapshot, conf: Config) -> None:
    """With tokens_per_hour on, this hour's charges plus the starts' never pass it."""
    decisions = schedule(snap, conf, NOW)
    limit = conf.limits.tokens_per_hour
    if limit and decisions.starts:
        assert snap.ledger.charges_last_hour + sum(s.charge for s in decisions.starts) <= limit


def test_readers_and_writers_partition_the_job_stages() -> None:
    """Every stage but merge and done is a reader or a writer, never both."""
    assert READERS.isdisjoint(WRITERS)
    assert set(Stage) - READERS - WRITERS == {Stage.MERGE, Stage.DONE}
