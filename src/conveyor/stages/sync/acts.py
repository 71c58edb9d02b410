"""The sync stage's acts: the effect each phase asks for, each end, and the table."""

from __future__ import annotations

from conveyor.core.config import Role
from conveyor.core.flows import guarded_head
from conveyor.core.state import Stage
from conveyor.core.stops import StopCode
from conveyor.stages import launch
from conveyor.stages.effects import ChargeBudget, Effect, SettlePr
from conveyor.stages.effects_merge import FinishSync, GuardBranch, RestoreBranch, SyncBase
from conveyor.stages.prompts import resolver as prompt
from conveyor.stages.step import End, SavedAt, Stopped, Table, branch_changed, deferred, over_budget
from conveyor.stages.sync.table import EXITS, UNDO, Event, Phase, Sync


def _launch(run: Sync) -> Effect:
    inputs = run.inputs
    text = prompt.render(
        prompt.ResolverData(
            **launch.frame(inputs),
            test=inputs.commands.test,
            conflicts=run.conflicts,
            continuation=run.continuation,
        )
    )
    return launch.writer("resolver", Role.RESOLVER, text, run)


def _finish(run: Sync) -> Effect:
    stack = run.stack
    if stack is None:
        return FinishSync()
    return FinishSync(onto=stack.onto, pr_base=stack.pr_base)


def _to_checks(run: Sync) -> End:
    # The rebased head is verified again from scratch; review does not run again (SYNC-1).
    return SavedAt(Stage.CHECKS, run.state.model_copy(update={"verified_sha": None}))


TABLE: Table[Phase, Event, Sync] = Table(
    name="sync",
    start=Phase.START,
    exits=EXITS,
    effects={
        Phase.GUARD: lambda run: GuardBranch(guarded_head(run.state)),
        Phase.SYNC_BASE: lambda run: SyncBase(run.state.stacked_on),
        Phase.CHARGE: lambda run: ChargeBudget(Role.RESOLVER),
        Phase.LAUNCH: _launch,
        Phase.FINISH: _finish,
        Phase.SETTLE: lambda run: SettlePr(run.action),
        **{undo: (lambda run: RestoreBranch()) for undo in UNDO},
    },
    ends={
        Phase.TO_CHECKS: _to_checks,
        Phase.NOT_DOABLE: lambda run: Stopped(
            StopCode.NOT_DOABLE,
            "after the rebase the change touches neither code nor wiki: the base has it already",
            run.state,
        ),
        Phase.RETRY_LATER: lambda run: SavedAt(Stage.SYNC, run.state),
        Phase.BRANCH_CHANGED: branch_changed,
        Phase.CONFLICT: lambda run: Stopped(
            StopCode.CONFLICT,
            "the rebase onto the base still conflicts after max_conflict_fixes resolvers",
            run.state,
            run.note or "\n".join(f"- {p}" for p in run.conflicts),
        ),
        Phase.PUSH_REJECTED: lambda run: Stopped(
            StopCode.PUSH_REJECTED, "the rebased branch could not be pushed", run.state, run.note
        ),
        Phase.TOO_LARGE: lambda run: Stopped(
            StopCode.TOO_LARGE,
            "the resolver handed off more than max_continuations times",
            run.state,
        ),
        Phase.OVER_BUDGET: over_budget,
        Phase.DEFERRED: deferred,
    },
)
