"""The sync and merge machines for a stacked issue (STK-2, STK-3, STK-11, MRG-11)."""

from __future__ import annotations

from conveyor.core.stacking import StackMove
from conveyor.core.state import IssueState, Rounds, StackedOn, Stage
from conveyor.stages import merge, sync
from conveyor.stages.effects import Checked, Done
from conveyor.stages.effects_merge import (
    CloseOut,
    FinishSync,
    GuardBranch,
    MergePr,
    MergeTried,
    ReadStack,
    Rebased,
    RebaseHere,
    StackRead,
    SyncBase,
    SyncFinished,
    Verified,
    VerifyHead,
)
from conveyor.stages.step import Released, SavedAt, Stopped
from tests.unit.stages.factory import inputs
from tests.unit.stages.factory_merge import HEAD, NEW, run_through

P_OLD, P_NEW, BASE = "1" * 40, "2" * 40, "3" * 40
STACKED = StackedOn(issue=7, head_sha=P_OLD)
PASSED = IssueState(
    stage=Stage.MERGE,
    head_sha=HEAD,
    verified_sha=HEAD,
    passed_sha=HEAD,
    pr=12,
    stacked_on=STACKED,
)
MOVED = StackMove(P_NEW, P_OLD, StackedOn(issue=7, head_sha=P_NEW), "agent/issue-7")
UNSTACKED = StackMove(BASE, P_OLD, None, "main")


def test_a_stacked_sync_replays_onto_the_new_target_and_saves_where_it_went() -> None:
    """STK-2, STK-3: sync-base carries the stacking; finish-sync checks against the target and
    retargets the PR; the saved state is stacked on P's new head."""
    state = IssueState(stage=Stage.SYNC, head_sha=HEAD, pr=12, stacked_on=STACKED)
    step = sync.start(inputs(head_sha=HEAD), state)
    step, asked = run_through(
        step,
        sync.transition,
        [Checked(True), Rebased("clean", NEW, stack=MOVED), SyncFinished(True, NEW)],
    )
    assert asked[1:] == [SyncBase(STACKED), FinishSync(onto=P_NEW, pr_base="agent/issue-7")]
    end = step.action
    assert isinstance(end, SavedAt)
    assert end.stage is Stage.CHECKS
    assert end.state.stacked_on == StackedOn(issue=7, head_sha=P_NEW)


def test_a_sync_after_the_prerequisite_merged_unstacks_the_issue() -> None:
    """STK-2, STK-5: onto the base, the PR back on main, `stacked_on` cleared."""
    state = IssueState(stage=Stage.SYNC, head_sha=HEAD, pr=12, stacked_on=STACKED)
    step = sync.start(inputs(head_sha=HEAD), state)
    step, asked = run_through(
        step,
        sync.transition,
        [Checked(True), Rebased("clean", NEW, stack=UNSTACKED), SyncFinished(True, NEW)],
    )
    assert asked[-1] == FinishSync(onto=BASE, pr_base="main")
    assert isinstance(step.action, SavedAt)
    assert step.action.state.stacked_on is None


def test_a_stacked_sync_whose_push_fails_keeps_the_old_stacking() -> None:
    """The branch is restored, so the state stays stacked where the branch still is."""
    state = IssueState(stage=Stage.SYNC, head_sha=HEAD, pr=12, stacked_on=STACKED)
    step = sync.start(inputs(head_sha=HEAD), state)
    step, _ = run_through(
        step,
        sync.transition,
        [Checked(True), Rebased("clean", NEW, stack=MOVED), SyncFinished(False, NEW, ("no",))],
    )
    step, _ = run_through(step, sync.transition, [Done()])
    assert isinstance(step.action, Stopped)
    assert step.action.state.stacked_on == STACKED


def test_a_stacked_merge_waits_while_its_prerequisite_is_open_where_it_was() -> None:
    """MRG-11: queued (released, stage kept) naming P and its PR; no merge order is read."""
    step = merge.start(inputs(head_sha=HEAD), PASSED)
    step, asked = run_through(step, merge.transition, [Checked(True), StackRead(False, P_OLD, 9)])
    assert asked == [GuardBranch(HEAD), ReadStack(STACKED)]
    end = step.action
    assert isinstance(end, Released)
    assert "#7" in end.reason
    assert "PR #9" in end.reason


def test_a_merged_prerequisite_restacks_onto_the_base_tests_only_and_merges() -> None:
    """STK-11: from merge the passed head is kept; a clean rebase re-runs only the tests and
    uses no sync from max_syncs."""
    step = merge.start(inputs(head_sha=HEAD), PASSED)
    step, asked = run_through(
        step,
        merge.transition,
        [
            Checked(True),
            StackRead(True, None),
            Rebased("clean", NEW, stack=UNSTACKED),
            Verified(True, NEW, "tests only"),
            MergeTried("merged", "m"),
            Done(),
        ],
    )
    assert asked[2:] == [
        RebaseHere(STACKED),
        VerifyHead(tests_only=True),
        MergePr(NEW),
        CloseOut("m", tests_only=True),
    ]
    end = step.action
    assert isinstance(end, SavedAt)
    assert end.stage is Stage.DONE
    assert end.state.stacked_on is None
    assert end.state.rounds.syncs == 0


def test_a_moved_prerequisite_restacks_at_merge_and_waits_again() -> None:
    """STK-11: onto P's new head, tests only, then queued again while P is open."""
    step = merge.start(inputs(head_sha=HEAD), PASSED)
    step, _ = run_through(
        step,
        merge.transition,
        [
            Checked(True),
            StackRead(False, P_NEW, 9),
            Rebased("clean", NEW, stack=MOVED),
            Verified(True, NEW, "tests only"),
        ],
    )
    end = step.action
    assert isinstance(end, Released)
    assert end.state.stacked_on == StackedOn(issue=7, head_sha=P_NEW)
    assert end.state.verified_sha == NEW


def test_a_restack_at_merge_of_a_head_not_passed_goes_to_sync_with_no_sync_counted() -> None:
    """Behind because P moved is not behind the base: max_syncs is not charged."""
    state = PASSED.model_copy(update={"passed_sha": None, "rounds": Rounds(syncs=3)})
    step = merge.start(inputs(head_sha=HEAD), state)
    step, _ = run_through(step, merge.transition, [Checked(True), StackRead(True, None)])
    end = step.action
    assert isinstance(end, SavedAt)
    assert end.stage is Stage.SYNC
    assert end.state.rounds.syncs == 3
