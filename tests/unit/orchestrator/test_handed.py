"""The handed-over rule: what an approved issue becomes once a person acts on its PR."""

from __future__ import annotations

from datetime import timedelta

from conveyor.core.state import Stage
from conveyor.core.stops import StopCode
from conveyor.orchestrator.decisions import StartJob, StopIssue
from conveyor.orchestrator.gate import open_gate
from conveyor.orchestrator.handed import Handed, handed
from conveyor.orchestrator.memory import WatchMemory
from conveyor.orchestrator.plan import plan
from conveyor.orchestrator.snapshot import HandedView, JobView, Lease, Snapshot

from .factory import LANE, NOW, config, issue, job, snapshot

VERIFIED = "a" * 40
PUSHED = "b" * 40


def _view(number: int = 7, pr_state: str = "open", **kw: object) -> HandedView:
    kw.setdefault("head", VERIFIED)
    kw.setdefault("verified", VERIFIED)
    return HandedView(number, number + 100, pr_state, **kw)  # type: ignore[arg-type]


def _decide(
    *views: HandedView, max_jobs: int = 4, merges: int = 4, jobs: tuple[JobView, ...] = ()
) -> Handed:
    snap: Snapshot = snapshot(handed=views, jobs=jobs)
    conf = config(max_jobs=max_jobs, stage_caps={"merge": merges})
    return handed(snap, conf, open_gate(snap, conf, NOW))


def test_a_pr_a_person_merged_starts_a_merge_job_that_lands_the_issue() -> None:
    """Merged, on an issue the merge closed or one still open: a merge start each."""
    made = _decide(_view(7, "merged", issue_open=False), _view(9, "merged"))
    assert made.starts == (
        StartJob(7, Stage.MERGE, made.starts[0].reason),
        StartJob(9, Stage.MERGE, made.starts[1].reason),
    )
    assert "PR #107 merged by a person" in made.starts[0].reason
    assert (made.stops, made.holds) == ((), ())
    assert {7, 9} <= made.gate.busy


def test_a_merge_lands_whatever_stop_the_issue_carries_and_whatever_its_head() -> None:
    """A person merged after a pr-closed or branch-changed stop, or a head Conveyor did not
    verify: the issue still ends merged (the close-out names the unverified head)."""
    closed = _view(7, "merged", stopped=StopCode.PR_CLOSED, issue_open=False)
    pushed = _view(8, "merged", head=PUSHED, stopped=StopCode.BRANCH_CHANGED)
    made = _decide(closed, pushed)
    assert [s.issue for s in made.starts] == [7, 8]


def test_a_landing_goes_through_the_start_gate() -> None:
    """max_jobs full: the landing is held with the gate's reason, not started."""
    made = _decide(_view(7, "merged"), max_jobs=1, jobs=(job(3, Stage.REVIEW),))
    assert made.starts == ()
    assert [(h.issue, h.stage, h.reason) for h in made.holds] == [(7, Stage.MERGE, "max-jobs 1/1")]


def test_landings_take_the_merge_stages_cap_one_at_a_time_by_default() -> None:
    """Merge is a writer: with the default cap the second landing waits for the next tick."""
    snap = snapshot(handed=(_view(7, "merged"), _view(8, "merged")))
    conf = config()
    made = handed(snap, conf, open_gate(snap, conf, NOW))
    assert [s.issue for s in made.starts] == [7]
    assert [(h.issue, h.reason) for h in made.holds] == [(8, "cap:merge 1/1")]


def test_another_lanes_live_lease_holds_a_landing_and_an_expired_one_does_not() -> None:
    theirs = _view(7, "merged", lease=Lease("lane-b", NOW + timedelta(hours=1)))
    ours = _view(8, "merged", lease=Lease(LANE, NOW + timedelta(hours=1)))
    expired = _view(9, "merged", lease=Lease("lane-b", NOW - timedelta(minutes=1)))
    made = _decide(theirs, ours, expired)
    assert [s.issue for s in made.starts] == [8, 9]
    assert [h.issue for h in made.holds] == [7]


def test_an_issue_with_a_live_job_gets_nothing() -> None:
    """A landing already running (or any job of the issue) is left to finish."""
    views = (_view(7, "merged"), _view(8, "closed"), _view(9, head=PUSHED))
    jobs = tuple(job(n, Stage.MERGE) for n in (7, 8, 9))
    made = _decide(*views, jobs=jobs)
    assert (made.starts, made.stops, made.holds) == ((), (), ())


def test_a_pr_closed_without_a_merge_stops_the_issue_pr_closed() -> None:
    made = _decide(_view(7, "closed"))
    [stop] = made.stops
    assert (stop.issue, stop.control) == (7, StopCode.PR_CLOSED)
    assert "PR #107 was closed without being merged" in stop.reason
    assert 7 in made.gate.busy
    assert made.starts == ()


def test_a_stop_is_made_once_and_a_closed_issue_is_not_stopped() -> None:
    """Stopped already (until a person lifts it), or the issue closed with the PR (the
    change is not wanted): nothing more."""
    stopped = _view(7, "closed", stopped=StopCode.PR_CLOSED)
    moved = _view(8, head=PUSHED, stopped=StopCode.BRANCH_CHANGED)
    unwanted = _view(9, "closed", issue_open=False)
    made = _decide(stopped, moved, unwanted)
    assert (made.starts, made.stops, made.holds) == ((), (), ())


def test_a_push_after_the_handover_stops_the_issue_branch_changed() -> None:
    """The open PR's head is not the verified one: the approval no longer holds."""
    made = _decide(_view(7, head=PUSHED))
    [stop] = made.stops
    assert (stop.issue, stop.control) == (7, StopCode.BRANCH_CHANGED)
    assert PUSHED[:12] in stop.reason
    assert VERIFIED[:12] in stop.reason


def test_an_open_pr_at_its_verified_head_is_left_for_the_person() -> None:
    """Still waiting for a person: nothing, however many ticks (an unknown head: nothing)."""
    made = _decide(_view(7), _view(8, head=None), _view(9, head=PUSHED, verified=None))
    assert (made.starts, made.stops, made.holds) == ((), (), ())
    assert made.gate.busy == frozenset()


def test_stops_a_stop_code_a_person_lifts() -> None:
    """Each stop the rule makes has a label of its own for a person to remove."""
    made = _decide(_view(7, "closed"), _view(8, head=PUSHED))
    labels = {stop.control.label for stop in made.stops}
    assert labels == {"agent:stopped-pr-closed", "agent:stopped-branch-changed"}
    assert all(isinstance(stop, StopIssue) for stop in made.stops)


def test_a_landing_starts_before_the_scheduler_and_takes_its_slot() -> None:
    """Merges go first: with one slot the landing starts and the new issue waits."""
    snap = snapshot(issue(3), handed=(_view(7, "merged"),))
    result = plan(snap, config(max_jobs=1), NOW, WatchMemory())
    assert result.handed is not None
    assert [(s.issue, s.stage) for s in result.handed.starts] == [(7, Stage.MERGE)]
    assert result.handed_decisions() == result.handed.starts
    assert result.schedule.starts == ()
    assert [h.issue for h in result.holds()] == [3]
    lines = result.log_lines()
    assert lines[0].startswith("start #7 merge: PR #107 merged by a person")
    assert lines[1].startswith("hold #3")


def test_a_stopped_handed_issue_is_not_started_by_the_scheduler_in_the_same_tick() -> None:
    """The stop and the log line; nothing else starts for the issue."""
    snap = snapshot(issue(7, Stage.APPROVED), handed=(_view(7, "closed"),))
    result = plan(snap, config(), NOW, WatchMemory())
    assert [type(d).__name__ for d in result.handed_decisions()] == ["StopIssue"]
    assert all(s.issue != 7 for s in result.schedule.starts)
    assert any(line.startswith("stop #7 pr-closed") for line in result.log_lines())
