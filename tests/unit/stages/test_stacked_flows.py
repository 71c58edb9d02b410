"""Stacking and the code and wiki flows together in the sync and merge machines (STK-3,
SYNC-12, FLOW-5, MRG-11, MRG-16)."""

from __future__ import annotations

from conveyor.core.stacking import StackMove
from conveyor.core.state import IssueState, StackedOn, Stage
from conveyor.stages import merge, sync
from conveyor.stages.effects import Checked, Done, PrSettled, SettlePr
from conveyor.stages.effects_merge import (
    CloseOut,
    FinishSync,
    FinishWiki,
    GuardBranch,
    MergePr,
    MergeTried,
    PublishWiki,
    Rebased,
    RebaseHere,
    StackRead,
    SyncFinished,
    Verified,
    VerifyHead,
)
from conveyor.stages.step import SavedAt
from tests.unit.stages.factory import inputs
from tests.unit.stages.factory_merge import HEAD, NEW, run_through

P_OLD, P_NEW, BASE = "1" * 40, "2" * 40, "3" * 40
STACKED = StackedOn(issue=7, head_sha=P_OLD)
MOVED = StackMove(P_NEW, P_OLD, StackedOn(issue=7, head_sha=P_NEW), "agent/issue-7")
UNSTACKED = StackMove(BASE, P_OLD, None, "main")


def test_a_stacked_sync_that_leaves_only_wiki_pages_closes_the_pr_and_stays_stacked() -> None:
    """SYNC-12 with STK-3: the flows come from the stacked finish-sync; the PR is closed
    by the shared step and the state is stacked on P's new head."""
    state = IssueState(stage=Stage.SYNC, head_sha=HEAD, pr=12, stacked_on=STACKED)
    step = sync.start(inputs(head_sha=HEAD), state)
    finished = SyncFinished(True, NEW, code_changed=False, wiki_ahead=True)
    step, asked = run_through(
        step,
        sync.transition,
        [Checked(True), Rebased("clean", NEW, stack=MOVED), finished, PrSettled(12, False)],
    )
    assert asked[2:] == [FinishSync(onto=P_NEW, pr_base="agent/issue-7"), SettlePr("close")]
    end = step.action
    assert isinstance(end, SavedAt)
    assert end.stage is Stage.CHECKS
    assert (end.state.flows, end.state.pr_closed) == ("wiki", True)
    assert end.state.stacked_on == StackedOn(issue=7, head_sha=P_NEW)


def test_a_stacked_wiki_only_merge_is_finish_wiki_with_no_prerequisite_read() -> None:
    """FLOW-5: a wiki-only change never stacks at merge; its pages are published at once."""
    state = IssueState(
        stage=Stage.MERGE, flows="wiki", head_sha=HEAD, verified_sha=HEAD, stacked_on=STACKED
    )
    step = merge.start(inputs(head_sha=HEAD), state)
    step, asked = run_through(step, merge.transition, [Checked(True)])
    assert asked == [GuardBranch(None)]
    assert step.action == FinishWiki()


def test_a_stacked_change_with_wiki_pages_restacks_then_merges_and_publishes() -> None:
    """MRG-11 then MRG-16: P merged, so the branch goes onto the base (tests only), the PR
    merges, the wiki is published, then the close-out."""
    state = IssueState(
        stage=Stage.MERGE,
        flows="both",
        head_sha=HEAD,
        verified_sha=HEAD,
        passed_sha=HEAD,
        pr=12,
        stacked_on=STACKED,
    )
    step = merge.start(inputs(head_sha=HEAD), state)
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
            Done(),
        ],
    )
    assert asked[2:] == [
        RebaseHere(STACKED),
        VerifyHead(tests_only=True),
        MergePr(NEW),
        PublishWiki(),
        CloseOut("m", tests_only=True),
    ]
    end = step.action
    assert isinstance(end, SavedAt)
    assert end.stage is Stage.DONE
    assert end.state.stacked_on is None
