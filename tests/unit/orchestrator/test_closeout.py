"""The close-out rule: which closed, merged issues the tick finishes (DONE-4)."""

from __future__ import annotations

from datetime import timedelta

from conveyor.core.state import Stage
from conveyor.orchestrator.closeout import close_outs
from conveyor.orchestrator.decisions import FinishCloseOut, describe
from conveyor.orchestrator.snapshot import ClosedView, Lease

from .factory import LANE, NOW, job, snapshot

MERGED = ClosedView(7, pr=8)


def test_a_merged_issue_nothing_is_finishing_gets_its_close_out_finished() -> None:
    """No job, no lease: one finish, said in one log line naming the PR."""
    (made,) = close_outs(snapshot(closed_merged=(MERGED,)), NOW)
    assert (made.issue, made.pr) == (7, 8)
    assert describe(made).startswith("close-out #7 PR #8: ")


def test_a_live_job_of_the_issue_is_left_to_finish_it() -> None:
    """The merge job is still running its close-out: nothing is done for it."""
    running = job(7, Stage.MERGE, alive=True)
    assert close_outs(snapshot(closed_merged=(MERGED,), jobs=(running,)), NOW) == ()


def test_a_dead_job_of_the_issue_does_not_hold_it_back() -> None:
    """The merge job died (kill -9) after the merge: the close-out is finished for it."""
    dead = job(7, Stage.MERGE, alive=False)
    decided = close_outs(snapshot(closed_merged=(MERGED,), jobs=(dead,)), NOW)
    assert [type(d) for d in decided] == [FinishCloseOut]


def test_another_lanes_live_lease_holds_it_until_the_lease_runs_out() -> None:
    """Another lane may still be finishing; our own lane's lease never holds us back."""
    theirs = ClosedView(7, 8, Lease("lane-b", NOW + timedelta(hours=1)))
    ours = ClosedView(9, 10, Lease(LANE, NOW + timedelta(hours=1)))
    expired = ClosedView(11, 12, Lease("lane-b", NOW - timedelta(minutes=1)))
    decided = close_outs(snapshot(closed_merged=(theirs, ours, expired)), NOW)
    assert [d.issue for d in decided] == [9, 11]
