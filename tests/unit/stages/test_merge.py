"""The merge machine: merge order, behind three ways, tests only once, max_syncs, close-out."""

from __future__ import annotations

from conveyor.core.config import Limits
from conveyor.core.merge_rules import Behind
from conveyor.core.state import Charge, IssueState, Pool, Rounds, Stage
from conveyor.core.stops import StopCode
from conveyor.stages import merge
from conveyor.stages.effects import Checked, Done, Result
from conveyor.stages.effects_merge import (
    BehindRead,
    CheckBehind,
    CloseOut,
    GuardBranch,
    HandedOver,
    HandOver,
    MergePr,
    MergeTried,
    QueueRead,
    ReadQueue,
    Rebased,
    RebaseHere,
    Verified,
    VerifyHead,
)
from conveyor.stages.step import Released, SavedAt, Stopped
from tests.unit.stages.factory import inputs
from tests.unit.stages.factory_merge import HEAD, NEW, run_through

PASSED = IssueState(
    stage=Stage.MERGE, head_sha=HEAD, verified_sha=HEAD, passed_sha=HEAD, pr=12, rebase_from=0
)
BEHIND = BehindRead(Behind.LOCAL)


def test_a_current_branch_is_squashed_at_the_verified_sha_and_closed_out() -> None:
    """MRG-1, MRG-3: guard, merge order, behind check, merge at verified_sha, close-out."""
    step = merge.start(inputs(head_sha=HEAD), PASSED)
    step, asked = run_through(
        step,
        merge.transition,
        [Checked(True), QueueRead(()), BehindRead(None), MergeTried("merged", "m" * 40), Done()],
    )
    assert asked == [
        GuardBranch(HEAD),
        ReadQueue(),
        CheckBehind(HEAD),
        MergePr(HEAD),
        CloseOut("m" * 40, tests_only=False),
    ]
    end = step.action
    assert isinstance(end, SavedAt)
    assert end.stage is Stage.DONE


def test_merging_resets_the_rebase_pool() -> None:
    """MRG-15: the saved state's rebase pool starts after every charge so far."""
    state = PASSED.model_copy(
        update={"charges": (Charge(role="resolver", pool=Pool.REBASE, tokens=100_000),)}
    )
    step = merge.start(inputs(head_sha=HEAD, limits=Limits(merge_order=False)), state)
    step, _ = run_through(
        step, merge.transition, [Checked(True), BehindRead(None), MergeTried("merged", "m"), Done()]
    )
    assert isinstance(step.action, SavedAt)
    assert step.action.state.rebase_from == 1


def test_an_older_pr_past_review_makes_the_issue_wait_at_merge() -> None:
    """MRG-9: queued behind #3: released, stage kept."""
    step = merge.start(inputs(head_sha=HEAD), PASSED)
    step, _ = run_through(step, merge.transition, [Checked(True), QueueRead((3,))])
    assert isinstance(step.action, Released)
    assert "#3" in step.action.reason


def test_merge_order_off_skips_the_queue() -> None:
    """Without merge_order no queue is read."""
    step = merge.start(inputs(head_sha=HEAD, limits=Limits(merge_order=False)), PASSED)
    assert merge.transition(step.memory, Checked(True)).action == CheckBehind(HEAD)


def test_a_behind_branch_that_passed_everything_is_rebased_and_tests_only_rerun() -> None:
    """MRG-5, MRG-7: rebase here, tests only, merge the new head, comment says tests only."""
    step = merge.start(inputs(head_sha=HEAD), PASSED)
    step, asked = run_through(
        step,
        merge.transition,
        [
            Checked(True),
            QueueRead(()),
            BEHIND,
            Rebased("clean", NEW),
            Verified(True, NEW, "tests only"),
            MergeTried("merged", "m"),
            Done(),
        ],
    )
    assert asked[3:] == [
        RebaseHere(),
        VerifyHead(tests_only=True),
        MergePr(NEW),
        CloseOut("m", tests_only=True),
    ]
    assert isinstance(step.action, SavedAt)
    assert step.action.state.rounds.syncs == 1


def test_the_forge_refusing_because_the_base_moved_takes_the_tests_only_path() -> None:
    """MRG-4: "base branch was modified" counts as behind."""
    step = merge.start(inputs(head_sha=HEAD), PASSED)
    step, _ = run_through(step, merge.transition, [Checked(True), QueueRead(()), BehindRead(None)])
    assert merge.transition(step.memory, MergeTried("behind")).action == RebaseHere()


def test_behind_again_after_the_tests_only_path_goes_back_to_sync() -> None:
    """MRG-5: once per job; the next behind counts a sync and goes to sync."""
    step = merge.start(inputs(head_sha=HEAD), PASSED)
    step, _ = run_through(
        step,
        merge.transition,
        [Checked(True), QueueRead(()), BEHIND, Rebased("clean", NEW), Verified(True, NEW, "")],
    )
    end = merge.transition(step.memory, MergeTried("behind")).action
    assert isinstance(end, SavedAt)
    assert end.stage is Stage.SYNC
    assert end.state.rounds.syncs == 2
    assert end.state.merge_rebase


def test_a_conflicting_rebase_or_a_failed_retest_goes_to_sync() -> None:
    """MRG-6, MRG-8: conflicts and red tests need the full path through sync."""
    for answer in (Rebased("conflict", HEAD, ("a.py",)), None):
        answers: list[Result] = [Checked(True), QueueRead(()), BEHIND]
        answers.append(answer or Rebased("clean", NEW))
        if answer is None:
            answers.append(Verified(False, NEW, "", ("test: failed",)))
        step, _ = run_through(merge.start(inputs(head_sha=HEAD), PASSED), merge.transition, answers)
        assert isinstance(step.action, SavedAt)
        assert step.action.stage is Stage.SYNC
        assert step.action.state.rounds.syncs == 1


def test_a_branch_not_passed_at_its_head_goes_to_sync() -> None:
    """Behind without every verdict at the head: full re-check."""
    state = PASSED.model_copy(update={"passed_sha": None})
    step = merge.start(inputs(head_sha=HEAD), state)
    step, _ = run_through(step, merge.transition, [Checked(True), QueueRead(()), BEHIND])
    assert isinstance(step.action, SavedAt)
    assert step.action.stage is Stage.SYNC


def test_behind_after_max_syncs_stops_sync_limit() -> None:
    """MRG-5: at most max_syncs rebases."""
    state = PASSED.model_copy(update={"rounds": Rounds(syncs=3)})
    step = merge.start(inputs(head_sha=HEAD), state)
    step, _ = run_through(step, merge.transition, [Checked(True), QueueRead(()), BEHIND])
    assert isinstance(step.action, Stopped)
    assert step.action.code is StopCode.SYNC_LIMIT


def test_a_changed_branch_or_a_refused_merge_stops() -> None:
    """branch-changed at the guard; another refusal stops merge-refused with its reason."""
    step = merge.start(inputs(head_sha=HEAD), PASSED)
    changed = merge.transition(step.memory, Checked(False, ("moved",))).action
    assert isinstance(changed, Stopped)
    assert changed.code is StopCode.BRANCH_CHANGED
    step, _ = run_through(step, merge.transition, [Checked(True), QueueRead(()), BehindRead(None)])
    refused = merge.transition(step.memory, MergeTried("refused", reason="draft")).action
    assert isinstance(refused, Stopped)
    assert refused.code is StopCode.MERGE_REFUSED
    assert refused.details == "draft"


def test_a_head_the_guard_adopted_is_recorded_then_rebased_tested_and_merged() -> None:
    """A rebase pushed by a job that died is the pipeline's own: the guard moves the recorded
    head to it; the verified head lacks the base, so the tests run again there before the merge."""
    step = merge.start(inputs(head_sha=NEW), PASSED)
    step, asked = run_through(
        step,
        merge.transition,
        [
            Checked(True, adopted=NEW),
            QueueRead(()),
            BEHIND,
            Rebased("clean", NEW),
            Verified(True, NEW, "tests only"),
            MergeTried("merged", "m"),
            Done(),
        ],
    )
    assert asked[:3] == [GuardBranch(HEAD), ReadQueue(), CheckBehind(HEAD)]
    assert asked[3:5] == [RebaseHere(), VerifyHead(tests_only=True)]
    assert MergePr(NEW) in asked
    assert isinstance(step.action, SavedAt)
    assert (step.action.stage, step.action.state.head_sha) == (Stage.DONE, NEW)


def test_a_head_the_guard_adopted_is_kept_while_the_issue_waits_in_the_merge_order() -> None:
    """Released in the queue: the saved state records the adopted head, so no later guard trips."""
    step = merge.start(inputs(head_sha=NEW), PASSED)
    step, _ = run_through(step, merge.transition, [Checked(True, adopted=NEW), QueueRead((3,))])
    assert isinstance(step.action, Released)
    assert step.action.state.head_sha == NEW


def test_with_a_person_merging_a_current_branch_is_handed_over_and_ends_approved() -> None:
    """Issue 48: no merge order, the behind check, then the handover instead of the squash;
    the issue ends at `approved`, not `done`, with nothing merged or closed out."""
    step = merge.start(inputs(head_sha=HEAD, hand_over=True), PASSED)
    step, asked = run_through(
        step, merge.transition, [Checked(True), BehindRead(None), HandedOver(12)]
    )
    assert asked == [GuardBranch(HEAD), CheckBehind(HEAD), HandOver(HEAD)]
    end = step.action
    assert isinstance(end, SavedAt)
    assert end.stage is Stage.APPROVED


def test_with_a_person_merging_a_behind_branch_is_rebased_retested_then_handed_over() -> None:
    """The person gets a PR current with its base: rebased here, tests re-run, then handed."""
    step = merge.start(inputs(head_sha=HEAD, hand_over=True), PASSED)
    step, asked = run_through(
        step,
        merge.transition,
        [
            Checked(True),
            BEHIND,
            Rebased("clean", NEW),
            Verified(True, NEW, "s", ()),
            HandedOver(12),
        ],
    )
    assert asked[-1] == HandOver(NEW)
    assert isinstance(step.action, SavedAt)
    assert step.action.stage is Stage.APPROVED
