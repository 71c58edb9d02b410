"""Properties of intake over generated snapshots: the filter only narrows, the order is the
promised one, the large cap holds, and the decisions are a function of the snapshot."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from conveyor.core.config import Config
from conveyor.core.state import Stage
from conveyor.orchestrator.intake import filter_reason, is_large, large_in_flight
from conveyor.orchestrator.schedule import schedule
from conveyor.orchestrator.snapshot import IssueView, Snapshot

from .factory import LANE, NOW, config
from .strategies import Digits

LABELS = ("conveyor", "priority", "bug")
SIZES = ("size/xs", "size/s", "size/m", "size/l", "size/xl")
PEOPLE = ("alice", "bob")
MILESTONES = (None, "v1", "v2")
FLIGHT = (Stage.TRIAGE, Stage.SPEC, Stage.REVIEW, Stage.IMPLEMENT, Stage.MERGE, Stage.DONE)


def decode(value: int, number: int) -> IssueView:
    """One open issue: new (at triage) or in flight, some labels, an assignee, a milestone."""
    d = Digits(value)
    fresh = d.take(2) == 0
    labels = tuple(name for name in LABELS if d.take(2) == 0) + SIZES[d.take(6) :][:1]
    return IssueView(
        number=number,
        created_at=NOW - timedelta(minutes=d.take(40)),
        stage=Stage.TRIAGE if fresh else FLIGHT[d.take(len(FLIGHT))],
        labels=labels,
        author=PEOPLE[d.take(2)],
        assignees=PEOPLE[d.take(3) :][:1],
        milestone=MILESTONES[d.take(3)],
        new=fresh,
        waiting=("untrusted" if fresh else "waiting-for-answer") if d.take(8) == 0 else None,
    )


@st.composite
def snapshots(draw: st.DrawFn) -> Snapshot:
    """Up to 16 open issues, no job running."""
    values = draw(st.lists(st.integers(0, 2**48), max_size=16))
    return Snapshot(lane=LANE, issues=tuple(decode(v, n) for n, v in enumerate(values, start=1)))


@st.composite
def configs(draw: st.DrawFn) -> Config:
    """Any mix of filter keys, an order, a large cap, and room for several jobs."""
    intake: dict[str, Any] = {
        "dispatch_order": draw(st.sampled_from(["smallest", "largest", "oldest"])),
        "max_large_in_flight": draw(st.sampled_from([0, 1, 1, 2])),
    }
    if draw(st.integers(0, 3)) == 0:
        intake["labels"] = ["conveyor"]
    if draw(st.integers(0, 3)) == 0:
        intake["assignee"] = draw(st.sampled_from(PEOPLE))
    if draw(st.integers(0, 3)) == 0:
        intake["milestone"] = draw(st.sampled_from(["v1", "v2"]))
    if draw(st.integers(0, 3)) == 0:
        intake["authors"] = [draw(st.sampled_from(PEOPLE))]
    jobs = draw(st.sampled_from([12, 6, 3, 1]))
    return config(max_jobs=jobs, readers_per_stage=jobs, writers_per_stage=jobs, intake=intake)


@given(snapshots(), configs())
def test_every_new_issue_started_is_trusted_and_matches_every_filter_key(
    snap: Snapshot, conf: Config
) -> None:
    """The filter only narrows the trust gate: no start of an unmatched or untrusted issue."""
    by_number = snap.issue_map()
    for start in schedule(snap, conf, NOW).starts:
        item = by_number[start.issue]
        if item.new:
            assert item.waiting is None
            assert filter_reason(item, conf.intake) is None


@given(snapshots(), configs())
def test_an_unmatched_new_issue_is_held_with_the_intake_reason(
    snap: Snapshot, conf: Config
) -> None:
    """Each new trusted issue the filter refuses gets a hold that says intake's reason."""
    held = {hold.issue: hold.reason for hold in schedule(snap, conf, NOW).holds}
    for item in snap.issues:
        why = filter_reason(item, conf.intake)
        if item.new and item.waiting is None and why is not None:
            assert held[item.number] == why


@given(snapshots(), configs())
def test_the_filter_changes_nothing_for_work_in_flight(snap: Snapshot, conf: Config) -> None:
    """The same snapshot with no filter starts the same issues in flight (room permitting)."""
    plain = config(
        max_jobs=conf.limits.max_jobs,
        readers_per_stage=conf.limits.readers_per_stage,
        writers_per_stage=conf.limits.writers_per_stage,
    )
    by_number = snap.issue_map()

    def in_flight(chosen: Config) -> list[int]:
        starts = schedule(snap, chosen, NOW).starts
        return [s.issue for s in starts if not by_number[s.issue].new]

    assert in_flight(conf) == in_flight(plain)


@given(snapshots(), configs())
def test_starts_follow_flight_first_then_priority_then_size_order_then_age(
    snap: Snapshot, conf: Config
) -> None:
    """No new start precedes a start in flight; new starts are sorted by the dispatch key."""
    intake = conf.intake
    by_number = snap.issue_map()
    starts = [by_number[s.issue] for s in schedule(snap, conf, NOW).starts]
    merges = [i for i in starts if i.stage is Stage.MERGE]
    rest = [i for i in starts if i.stage is not Stage.MERGE]
    assert starts[: len(merges)] == merges
    news = [not item.new for item in rest]
    assert news == sorted(news, reverse=True)
    sign = {"smallest": 1, "largest": -1, "oldest": 0}[intake.dispatch_order]

    def key(item: IssueView) -> tuple[bool, int, object, int]:
        priority = any(name == intake.priority_label for name in item.labels)
        rank = sign * intake.rank(intake.size_of(item.labels))
        return (not priority, rank, item.created_at, item.number)

    fresh = [item for item in rest if item.new]
    assert fresh == sorted(fresh, key=key)


@st.composite
def crowded(draw: st.DrawFn) -> Snapshot:
    """Many new issues, most of them large, beside some large work in flight."""
    sizes = st.sampled_from(["size/l", "size/xl", "size/m"])
    fresh = draw(st.lists(sizes, min_size=2, max_size=8))
    flight = draw(st.lists(sizes, max_size=3))
    issues = [
        IssueView(number=n, created_at=NOW, stage=Stage.TRIAGE, labels=(label,), new=True)
        for n, label in enumerate(fresh, start=1)
    ]
    issues += [
        IssueView(number=100 + n, created_at=NOW, stage=Stage.SPEC, labels=(label,))
        for n, label in enumerate(flight)
    ]
    return Snapshot(lane=LANE, issues=tuple(issues))


@given(crowded(), st.integers(1, 3), st.sampled_from(["smallest", "largest", "oldest"]))
def test_new_large_starts_never_pass_the_large_cap(snap: Snapshot, cap: int, order: str) -> None:
    """Large work in flight plus new large starts stays within the cap (new large work starts
    only while under it)."""
    intake = {"max_large_in_flight": cap, "dispatch_order": order}
    conf = config(max_jobs=12, readers_per_stage=12, intake=intake)
    before = large_in_flight(snap.issues, conf.intake)
    by_number = snap.issue_map()
    added = sum(
        1
        for s in schedule(snap, conf, NOW).starts
        if by_number[s.issue].new and is_large(by_number[s.issue], conf.intake)
    )
    assert added == 0 or before + added <= cap


@given(snapshots(), configs(), st.randoms(use_true_random=False))
def test_the_same_snapshot_gives_the_same_intake_decisions_in_any_order(
    snap: Snapshot, conf: Config, rng: random.Random
) -> None:
    """Decisions depend on the snapshot's content, not the order its issues are listed in."""
    shuffled = list(snap.issues)
    rng.shuffle(shuffled)
    other = Snapshot(lane=snap.lane, issues=tuple(shuffled))
    assert schedule(snap, conf, NOW) == schedule(other, conf, NOW)
