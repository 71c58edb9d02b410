"""The scheduler's rules, one named case each (issue 7, ORC-*, BB-PAUSE)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from pydantic import ValidationError

from conveyor.core.state import Stage
from conveyor.core.stops import StopCode
from conveyor.orchestrator.schedule import schedule
from conveyor.orchestrator.snapshot import CiWait, JobRole, Lease

from .factory import LANE, NOW, config, issue, job, reasons, snapshot, started


def test_readers_run_in_parallel_up_to_max_jobs() -> None:
    """Three triage issues with max_jobs 2: the two oldest start, the third waits on max-jobs."""
    snap = snapshot(issue(1), issue(2), issue(3))
    decisions = schedule(snap, config(max_jobs=2, readers_per_stage=3), NOW)
    assert started(decisions) == [1, 2]
    assert reasons(decisions) == {3: "max-jobs 2/2"}


def test_a_reader_stage_is_capped_while_other_stages_still_start() -> None:
    """With two reviews allowed, the third review waits on its stage cap and a triage starts."""
    snap = snapshot(*(issue(n, Stage.REVIEW) for n in (1, 2, 3)), issue(4))
    decisions = schedule(snap, config(max_jobs=5, readers_per_stage=2), NOW)
    assert started(decisions) == [1, 2, 4]
    assert reasons(decisions) == {3: "cap:review 2/2"}


def test_a_stage_cap_of_zero_keeps_the_orchestrator_from_running_that_stage() -> None:
    """`stage_caps = {security = 0}` holds every security start."""
    decisions = schedule(
        snapshot(issue(1, Stage.SECURITY)), config(stage_caps={"security": 0}), NOW
    )
    assert reasons(decisions) == {1: "cap:security 0/0"}


def test_spec_is_scheduled_as_a_reader() -> None:
    """A spec starts beside a whole-repository writer, and two specs share the reader cap."""
    live = job(9, Stage.IMPLEMENT, role=JobRole.WRITER)
    snap = snapshot(
        issue(1, Stage.SPEC), issue(2, Stage.SPEC), issue(9, Stage.IMPLEMENT), jobs=(live,)
    )
    decisions = schedule(snap, config(max_jobs=4, readers_per_stage=2, writers_per_stage=1), NOW)
    assert started(decisions) == [1, 2]


def test_a_writer_waits_while_its_paths_overlap_a_live_writer() -> None:
    """An implement on `src/app/**` waits for the live fix on `src/app/x.py`; one on docs starts."""
    live = job(9, Stage.FIX, role=JobRole.WRITER)
    snap = snapshot(
        issue(1, Stage.IMPLEMENT, where=("src/app/**",)),
        issue(2, Stage.SYNC, where=("docs/*.md",)),
        issue(9, Stage.FIX, changed_paths=("src/app/x.py",)),
        jobs=(live,),
    )
    decisions = schedule(snap, config(max_jobs=4), NOW)
    assert started(decisions) == [2]
    assert reasons(decisions) == {1: "overlap:#9"}


def test_a_writer_without_paths_is_the_whole_repository() -> None:
    """With neither interfaces nor changed paths, a writer overlaps any live writer."""
    live = job(9, Stage.CHECKS, role=JobRole.WRITER)
    snap = snapshot(issue(1, Stage.FIX), issue(9, Stage.CHECKS, where=("docs/**",)), jobs=(live,))
    assert reasons(schedule(snap, config(max_jobs=4), NOW)) == {1: "overlap:#9"}


def test_globs_that_differ_only_after_a_wildcard_count_as_overlapping() -> None:
    """`src/*.ts` and `src/*.md` overlap: a false overlap only delays (ORC-4)."""
    snap = snapshot(
        issue(1, Stage.IMPLEMENT, where=("src/*.ts",)),
        issue(2, Stage.FIX, where=("src/*.md",)),
    )
    assert reasons(schedule(snap, config(max_jobs=4), NOW)) == {2: "overlap:#1"}


def test_the_older_of_two_overlapping_writers_goes_first_whatever_the_input_order() -> None:
    """Issue 5 is older than issue 2, so it starts and issue 2 waits on it, in either order."""
    older = issue(5, Stage.IMPLEMENT, age_minutes=500, where=("src/**",))
    younger = issue(2, Stage.FIX, where=("src/lib/**",))
    for snap in (snapshot(older, younger), snapshot(younger, older)):
        decisions = schedule(snap, config(max_jobs=4), NOW)
        assert started(decisions) == [5]
        assert reasons(decisions) == {2: "overlap:#5"}


def test_writers_per_stage_caps_disjoint_writers_of_one_stage() -> None:
    """Two implements on separate folders: one starts, the other waits on the stage cap."""
    snap = snapshot(
        issue(1, Stage.IMPLEMENT, where=("a/**",)), issue(2, Stage.IMPLEMENT, where=("b/**",))
    )
    decisions = schedule(snap, config(max_jobs=4, writers_per_stage=1), NOW)
    assert started(decisions) == [1]
    assert reasons(decisions) == {2: "cap:implement 1/1"}


def test_an_issue_after_an_open_issue_is_held_until_it_closes() -> None:
    """`after:#1` while #1 is open; once #1 is gone (merged) the issue starts."""
    waiting = issue(2, after=1)
    assert (
        reasons(schedule(snapshot(issue(1, Stage.MERGE), waiting), config(), NOW))[2] == "after:#1"
    )
    assert started(schedule(snapshot(waiting), config(), NOW)) == [2]


def test_an_issue_after_one_closed_without_completing_stays_held() -> None:
    """A prerequisite closed unmerged keeps the hold, named so a person sees why."""
    snap = snapshot(issue(2, after=1), closed_unmerged=frozenset({1}))
    assert reasons(schedule(snap, config(), NOW)) == {2: "after:#1:closed-unmerged"}


def test_with_merge_order_merges_follow_pr_age_whatever_they_unblock() -> None:
    """MRG-9: the merge op lets only the oldest PR past review merge, so it heads the queue."""
    snap = snapshot(
        issue(3, Stage.MERGE, pr=12),
        issue(7, Stage.MERGE, pr=10),
        issue(9, Stage.MERGE, pr=11, age_minutes=99),
        issue(8, after=9),
    )
    decisions = schedule(snap, config(max_jobs=1, merge_order=True), NOW)
    assert decisions.merge_queue == (7, 9, 3)
    assert started(decisions) == [7]


def test_merges_go_first_for_the_issues_that_unblock_the_most() -> None:
    """#7 unblocks two waiting issues, #3 none: #7 heads the queue and takes the one slot."""
    snap = snapshot(
        issue(1),
        issue(3, Stage.MERGE),
        issue(7, Stage.MERGE),
        issue(8, after=7),
        issue(9, after=7),
    )
    decisions = schedule(snap, config(max_jobs=1, merge_order=False), NOW)
    assert decisions.merge_queue == (7, 3)
    assert started(decisions) == [7]
    assert reasons(decisions) == {
        3: "max-jobs 1/1",
        1: "max-jobs 1/1",
        8: "after:#7",
        9: "after:#7",
    }


def test_a_ci_wait_is_started_again_only_when_it_is_due() -> None:
    """ci_poll_seconds 30 after the last read: held at 20 s, started at 30 s with its reason."""
    wait = CiWait(
        "c0ffee" * 6, since=NOW - timedelta(minutes=5), last_read=NOW - timedelta(seconds=20)
    )
    snap = snapshot(issue(1, Stage.CHECKS, ci_wait=wait))
    assert reasons(schedule(snap, config(ci_poll_seconds=30), NOW))[1].startswith(
        "ci-wait: next read due"
    )
    due = schedule(snap, config(ci_poll_seconds=30), NOW + timedelta(seconds=10))
    assert [(s.issue, s.stage, s.reason) for s in due.starts] == [
        (1, Stage.CHECKS, "ci-wait due for c0ffeec0ffee")
    ]


def test_a_ci_wait_never_read_is_due_after_its_start() -> None:
    """Without a read yet the wait counts from `since`."""
    snap = snapshot(
        issue(1, Stage.CHECKS, ci_wait=CiWait("abc", since=NOW - timedelta(seconds=31)))
    )
    assert started(schedule(snap, config(ci_poll_seconds=30), NOW)) == [1]


def test_an_issue_with_a_live_job_gets_no_second_job_and_no_hold() -> None:
    """The live job's issue is neither started nor held; its slot counts against max_jobs."""
    snap = snapshot(issue(1), issue(2), jobs=(job(1, Stage.TRIAGE),))
    decisions = schedule(snap, config(max_jobs=1), NOW)
    assert started(decisions) == []
    assert reasons(decisions) == {2: "max-jobs 1/1"}


def test_a_dead_unfinished_job_leaves_its_issue_to_the_watchdog() -> None:
    """A job gone unfinished at the issue's stage is the watchdog's to resume, not a new start."""
    snap = snapshot(issue(1, Stage.REVIEW), jobs=(job(1, Stage.REVIEW, alive=False),))
    decisions = schedule(snap, config(), NOW)
    assert (decisions.starts, decisions.holds) == ((), ())


def test_a_finished_job_lets_its_issue_go_on_to_the_next_stage() -> None:
    """The last job ended at review; the issue now at fix starts."""
    snap = snapshot(issue(1, Stage.FIX), jobs=(job(1, Stage.REVIEW, alive=False, finished=True),))
    assert started(schedule(snap, config(), NOW)) == [1]


def test_stopped_and_done_issues_get_no_decision() -> None:
    """A stop label or the done stage takes the issue out of scheduling entirely."""
    snap = snapshot(issue(1, stopped=StopCode.CONFLICT), issue(2, Stage.DONE))
    decisions = schedule(snap, config(), NOW)
    assert (decisions.starts, decisions.holds) == ((), ())


def test_an_issue_waiting_outside_the_scheduler_is_held_with_that_reason() -> None:
    """An open question keeps the issue waiting, and the hold says so."""
    assert reasons(schedule(snapshot(issue(1, waiting="asking")), config(), NOW)) == {1: "asking"}


def test_another_lanes_live_lease_holds_the_issue() -> None:
    """Another lane's unexpired lease holds; an expired one, or our own, does not."""
    theirs = Lease("lane-b", NOW + timedelta(hours=1))
    held = schedule(snapshot(issue(1, lease=theirs)), config(), NOW)
    assert reasons(held)[1].startswith("leased:lane-b")
    expired = Lease("lane-b", NOW - timedelta(minutes=1))
    assert started(schedule(snapshot(issue(1, lease=expired)), config(), NOW)) == [1]
    ours = Lease(LANE, NOW + timedelta(hours=1))
    assert started(schedule(snapshot(issue(1, lease=ours)), config(), NOW)) == [1]


def test_a_stage_cap_for_an_unknown_stage_is_a_config_error() -> None:
    """`stage_caps` keys are stage names; a typo is refused at load, naming the key."""
    with pytest.raises(ValidationError, match=r"stage_caps\.revew"):
        config(stage_caps={"revew": 1})
