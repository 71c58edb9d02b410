"""Intake: the filter, the priority and size order and the large cap, one named case each
(issue 48, BB-DISP-1, BB-DISP-2, BB-DISP-5)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from conveyor.core.state import Stage
from conveyor.orchestrator.schedule import schedule
from conveyor.orchestrator.snapshot import IssueView

from .factory import NOW, config, issue, reasons, snapshot, started


def new(number: int, *labels: str, **kw: Any) -> IssueView:
    """A new issue (no state yet) by alice with these labels; a smaller number is older."""
    kw.setdefault("author", "alice")
    return issue(number, labels=labels, new=True, **kw)


def test_without_an_intake_section_every_trusted_issue_is_taken_oldest_first() -> None:
    """The defaults filter nothing and size nothing: the order is age."""
    decisions = schedule(
        snapshot(new(3), new(1), new(2)), config(max_jobs=5, readers_per_stage=5), NOW
    )
    assert started(decisions) == [1, 2, 3]


def test_the_label_filter_takes_only_opted_in_issues_and_says_why_the_others_wait() -> None:
    """`labels = ["conveyor"]`: an issue without it is held with the filter's reason."""
    conf = config(max_jobs=5, readers_per_stage=5, intake={"labels": ["conveyor"]})
    decisions = schedule(snapshot(new(1), new(2, "Conveyor")), conf, NOW)
    assert started(decisions) == [2]
    assert reasons(decisions) == {1: "intake: lacks the label `conveyor` (intake.labels)"}


def test_assignee_milestone_and_authors_each_narrow_the_new_work() -> None:
    """Every key that is set must match; each miss names its key."""
    conf = config(
        max_jobs=9,
        readers_per_stage=9,
        intake={"assignee": "alice", "milestone": "v2", "authors": ["alice"]},
    )
    snap = snapshot(
        new(1, assignees=("alice",), milestone="v2"),
        new(2, assignees=("bob",), milestone="v2"),
        new(3, assignees=("alice",), milestone="v1"),
        new(4, assignees=("alice",), milestone="v2", author="bob"),
        new(5, assignees=("ALICE",), milestone="v2"),
    )
    decisions = schedule(snap, conf, NOW)
    assert started(decisions) == [1, 5]
    assert reasons(decisions) == {
        2: "intake: not assigned to alice (intake.assignee)",
        3: "intake: milestone 'v1', not 'v2' (intake.milestone)",
        4: "intake: opened by bob, not one of intake.authors",
    }


def test_work_in_flight_goes_on_though_it_no_longer_matches_the_filter() -> None:
    """An issue the pipeline holds (a state) is not new: removing its label does not strand it."""
    conf = config(max_jobs=5, readers_per_stage=5, intake={"labels": ["conveyor"]})
    decisions = schedule(snapshot(issue(1, Stage.SPEC), new(2)), conf, NOW)
    assert started(decisions) == [1]


def test_the_filter_never_widens_trust() -> None:
    """An untrusted issue stays held as untrusted, whatever labels it carries."""
    conf = config(intake={"labels": ["conveyor"]})
    decisions = schedule(snapshot(new(1, "conveyor", waiting="untrusted")), conf, NOW)
    assert reasons(decisions) == {1: "untrusted"}


def test_authors_outside_allowed_users_is_a_config_error() -> None:
    """The filter narrows the trusted users; naming someone else is refused at load."""
    with pytest.raises(ValidationError, match="mallory not in allowed_users"):
        config(intake={"authors": ["mallory"]})


def test_priority_first_then_smallest_then_oldest() -> None:
    """BB-DISP-1: priority, then dispatch_order (smallest first by default), then age."""
    snap = snapshot(
        new(1, "size/l"), new(2, "size/s"), new(3), new(4, "size/xl", "priority"), new(5, "size/s")
    )
    decisions = schedule(snap, config(max_jobs=9, readers_per_stage=9), NOW)
    assert started(decisions) == [4, 2, 5, 3, 1]
    assert (
        decisions.starts[0].reason == "new issue, `priority`, size xl, smallest first, then oldest"
    )


@pytest.mark.parametrize(
    ("order", "expected"),
    [("largest", [1, 3, 2]), ("oldest", [1, 2, 3])],
)
def test_dispatch_order_can_take_the_largest_first_or_only_age(
    order: str, expected: list[int]
) -> None:
    """`dispatch_order = "largest"` reverses the sizes; `"oldest"` ignores them."""
    snap = snapshot(new(1, "size/xl"), new(2, "size/xs"), new(3))
    conf = config(max_jobs=9, readers_per_stage=9, intake={"dispatch_order": order})
    assert started(schedule(snap, conf, NOW)) == expected


def test_work_in_flight_starts_before_any_new_work_even_a_priority_one() -> None:
    """BB-DISP-1: issues already held are finished first and never reordered."""
    snap = snapshot(new(1, "priority", "size/xs"), issue(9, Stage.SPEC), issue(8, Stage.REVIEW))
    decisions = schedule(snap, config(max_jobs=9, readers_per_stage=9), NOW)
    assert started(decisions) == [8, 9, 1]


def test_priority_lifts_no_cap() -> None:
    """BB-DISP-2: a priority issue past max_jobs waits like any other."""
    snap = snapshot(new(1), new(2, "priority"))
    decisions = schedule(snap, config(max_jobs=1), NOW)
    assert started(decisions) == [2]
    assert reasons(decisions) == {1: "max-jobs 1/1"}


def test_new_large_work_waits_while_the_cap_is_reached_and_smaller_work_goes_on() -> None:
    """BB-DISP-5: one size/l in flight with max_large_in_flight 1 holds new large issues only."""
    conf = config(max_jobs=9, readers_per_stage=9, intake={"max_large_in_flight": 1})
    snap = snapshot(
        issue(1, Stage.IMPLEMENT, labels=("size/l",)), new(2, "size/xl"), new(3, "size/m")
    )
    decisions = schedule(snap, conf, NOW)
    assert started(decisions) == [1, 3]
    assert reasons(decisions) == {
        2: "intake: size xl waits, 1 large in flight (max_large_in_flight)"
    }


def test_the_large_cap_counts_large_issues_started_in_the_same_tick() -> None:
    """Two new large issues and a cap of one: the first starts, the second waits."""
    conf = config(max_jobs=9, readers_per_stage=9, intake={"max_large_in_flight": 1})
    decisions = schedule(snapshot(new(1, "size/l"), new(2, "size/l")), conf, NOW)
    assert started(decisions) == [1]
    assert 2 in reasons(decisions)


def test_stopped_or_asking_large_issues_are_not_in_flight() -> None:
    """A stopped or waiting large issue does not use up the large cap."""
    conf = config(max_jobs=9, readers_per_stage=9, intake={"max_large_in_flight": 1})
    snap = snapshot(
        issue(1, Stage.SPEC, labels=("size/l",), waiting="waiting-for-answer"), new(2, "size/l")
    )
    assert started(schedule(snap, conf, NOW)) == [2]


def test_sizes_outside_the_configured_list_are_a_config_error() -> None:
    """`max_size` must be one of `sizes`."""
    with pytest.raises(ValidationError, match="expected one of the sizes"):
        config(intake={"max_size": "huge"})


def test_an_issue_above_max_size_is_told_to_split() -> None:
    """The size above `max_size` is named with the label that set it."""
    conf = config(intake={"max_size": "l"})
    assert conf.intake.oversize(("size/l",)) is None
    assert conf.intake.oversize(("size/xl",)) == (
        "a person sized it xl (label `size/xl`), above the intake's max_size l:"
        " split it into smaller issues"
    )
