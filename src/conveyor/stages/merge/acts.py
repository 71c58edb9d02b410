"""The merge stage's acts: the effect each phase asks for, each end, and the table."""

from __future__ import annotations

from conveyor.core.budget import reset_rebase_pool
from conveyor.core.flows import guarded_head
from conveyor.core.state import Stage
from conveyor.core.stops import StopCode
from conveyor.stages.effects_merge import (
    CheckBehind,
    CloseOut,
    FinishWiki,
    GuardBranch,
    HandOver,
    MergePr,
    PublishWiki,
    ReadQueue,
    ReadStack,
    RebaseHere,
    VerifyHead,
)
from conveyor.stages.merge.table import EXITS, Event, Merge, Phase
from conveyor.stages.step import End, Released, SavedAt, Stopped, Table, branch_changed


def _read_stack(run: Merge) -> ReadStack:
    stacked = run.state.stacked_on
    assert stacked is not None, "only a stacked issue reads its prerequisite"
    return ReadStack(stacked)


def _merged(run: Merge) -> End:
    # The rebase pool resets when the issue merges (MRG-15).
    return SavedAt(Stage.DONE, reset_rebase_pool(run.state))


def _to_sync(run: Merge) -> End:
    return SavedAt(Stage.SYNC, run.state.model_copy(update={"ci_wait": None}))


TABLE: Table[Phase, Event, Merge] = Table(
    name="merge",
    start=Phase.START,
    exits=EXITS,
    effects={
        Phase.GUARD: lambda run: GuardBranch(guarded_head(run.state)),
        Phase.STACK: _read_stack,
        Phase.QUEUE: lambda run: ReadQueue(),
        Phase.BEHIND: lambda run: CheckBehind(run.sha),
        Phase.REBASE: lambda run: RebaseHere(run.state.stacked_on),
        Phase.RETEST: lambda run: VerifyHead(tests_only=True),
        Phase.MERGE: lambda run: MergePr(run.sha),
        Phase.HAND_OVER: lambda run: HandOver(run.sha),
        Phase.PUBLISH: lambda run: PublishWiki(),
        Phase.CLOSE_OUT: lambda run: CloseOut(
            run.merge_sha,
            tests_only=run.rebased_here,
            person=run.person,
            verified=run.sha if run.person is not None else "",
        ),
        Phase.FINISH_WIKI: lambda run: FinishWiki(),
    },
    ends={
        Phase.MERGED: _merged,
        Phase.HANDED_OVER: lambda run: SavedAt(Stage.APPROVED, run.state),
        Phase.WAITING: lambda run: Released(run.state, run.note),
        Phase.TO_SYNC: _to_sync,
        Phase.BRANCH_CHANGED: branch_changed,
        Phase.SYNC_LIMIT: lambda run: Stopped(
            StopCode.SYNC_LIMIT,
            "the branch is behind the base again after max_syncs rebases",
            run.state,
            run.note,
        ),
        Phase.REFUSED: lambda run: Stopped(
            StopCode.MERGE_REFUSED, "the forge refused the merge", run.state, run.note
        ),
        Phase.WIKI_CONFLICT: lambda run: Stopped(
            StopCode.CONFLICT,
            "the issue's wiki pages no longer apply to the wiki's latest version",
            run.state,
            run.note,
        ),
    },
)
