"""The sync machine: a clean rebase, the conflict resolver, cannot-fix and the limits."""

from __future__ import annotations

from conveyor.core.budget import Charged as BudgetCharged
from conveyor.core.budget import charge
from conveyor.core.config import Budgets, Limits, Role
from conveyor.core.session import SessionRole, SessionStatus
from conveyor.core.state import IssueState, Pool, Rounds, Stage
from conveyor.core.stops import StopCode
from conveyor.stages import sync
from conveyor.stages.effects import (
    ChargeBudget,
    Charged,
    Checked,
    Done,
    LaunchSession,
    Refused,
    SessionEnded,
)
from conveyor.stages.effects_merge import (
    FinishSync,
    GuardBranch,
    Rebased,
    RestoreBranch,
    SyncBase,
    SyncFinished,
)
from conveyor.stages.step import Released, SavedAt, Step, Stopped
from conveyor.stages.sync.table import Sync
from tests.unit.stages.factory import failed, inputs, replied
from tests.unit.stages.factory_merge import HEAD, NEW, resolver_reply, run_through

STATE = IssueState(stage=Stage.SYNC, head_sha=HEAD, verified_sha=HEAD, pr=12)
CONFLICT = Rebased("conflict", HEAD, ("a.py",))


def conflicted(state: IssueState = STATE) -> Step[Sync]:
    """Sync started, guarded and rebased into a conflict."""
    step = sync.start(inputs(head_sha=HEAD), state)
    assert step.action == GuardBranch(HEAD)
    step, _ = run_through(step, sync.transition, [Checked(True), CONFLICT])
    return step


def restored(step: Step[Sync]) -> Step[Sync]:
    """The branch is restored (the rebase undone) before a non-success end."""
    assert step.action == RestoreBranch()
    return sync.transition(step.memory, Done())


def test_a_clean_rebase_is_finished_and_goes_to_checks_unverified() -> None:
    """SYNC-1, SYNC-3: clean rebase, finish-sync pushes, checks verify the new head again."""
    step = sync.start(inputs(head_sha=HEAD), STATE)
    step, asked = run_through(
        step, sync.transition, [Checked(True), Rebased("clean", NEW), SyncFinished(True, NEW)]
    )
    assert asked[1:] == [SyncBase(), FinishSync()]
    end = step.action
    assert isinstance(end, SavedAt)
    assert end.stage is Stage.CHECKS
    assert end.state.head_sha == NEW
    assert end.state.verified_sha is None


def test_a_conflict_gets_a_writer_resolver_charged_to_the_rebase_pool() -> None:
    """SYNC-2: a resolver (writer, resolver budget role) with the conflicted paths."""
    step = conflicted()
    assert step.action == ChargeBudget(Role.RESOLVER)
    step = sync.transition(step.memory, Charged(step.memory.state))
    launch = step.action
    assert isinstance(launch, LaunchSession)
    assert launch.role is SessionRole.WRITER
    assert launch.reply_model == "resolver"
    assert "a.py" in launch.task
    step = sync.transition(step.memory, replied(resolver_reply()))
    assert step.action == FinishSync()
    end = sync.transition(step.memory, SyncFinished(True, NEW)).action
    assert isinstance(end, SavedAt)
    assert end.stage is Stage.CHECKS
    assert end.state.rounds.conflict_fixes == 1


def test_cannot_fix_leaves_the_issue_at_sync_for_a_fresh_resolver() -> None:
    """SYNC-5: cannot-fix (or a failed session) saves the issue at sync, the attempt counted."""
    for ended in (replied(resolver_reply("cannot-fix")), failed()):
        step = conflicted()
        step = sync.transition(step.memory, Charged(step.memory.state))
        end = restored(sync.transition(step.memory, ended)).action
        assert isinstance(end, SavedAt)
        assert end.stage is Stage.SYNC
        assert end.state.rounds.conflict_fixes == 1


def test_a_rejected_resolution_retries_then_stops_conflict_on_the_last_attempt() -> None:
    """SYNC-3, SYNC-16: finish-sync refusing markers: retry; on the last permitted attempt, stop."""
    for before, expected in ((0, SavedAt), (1, Stopped)):
        state = STATE.model_copy(update={"rounds": Rounds(conflict_fixes=before)})
        step = conflicted(state)
        step = sync.transition(step.memory, Charged(step.memory.state))
        step = sync.transition(step.memory, replied(resolver_reply()))
        step = sync.transition(step.memory, SyncFinished(False, HEAD, ("a.py: marker",)))
        end = restored(step).action
        assert isinstance(end, expected)
        if isinstance(end, Stopped):
            assert end.code is StopCode.CONFLICT


def test_max_conflict_fixes_used_up_stops_conflict_without_a_resolver() -> None:
    """SYNC-6: no further resolver once max_conflict_fixes are used."""
    state = STATE.model_copy(update={"rounds": Rounds(conflict_fixes=2)})
    end = restored(conflicted(state)).action
    assert isinstance(end, Stopped)
    assert end.code is StopCode.CONFLICT


def test_an_unpayable_resolver_stops_budget_not_conflict() -> None:
    """SYNC-7: the rebase pool cannot pay: budget."""
    end = restored(sync.transition(conflicted().memory, Refused("pool spent"))).action
    assert isinstance(end, Stopped)
    assert end.code is StopCode.BUDGET


def test_a_resolver_handing_off_continues_then_stops_too_large() -> None:
    """SYNC-8: one continuation from the same allowance, then too-large."""
    step = conflicted()
    step = sync.transition(step.memory, Charged(step.memory.state))
    handoff = SessionEnded(SessionStatus.HANDOFF)
    step = sync.transition(step.memory, handoff)
    assert isinstance(step.action, ChargeBudget)
    step = sync.transition(step.memory, Charged(step.memory.state))
    assert step.memory.state.rounds.conflict_fixes == 1
    end = restored(sync.transition(step.memory, handoff)).action
    assert isinstance(end, Stopped)
    assert end.code is StopCode.TOO_LARGE


def test_a_changed_branch_stops_and_a_rate_limit_releases() -> None:
    """branch-changed before any rebase; a rate-limited resolver releases the issue."""
    step = sync.start(inputs(head_sha=HEAD), STATE)
    changed = sync.transition(step.memory, Checked(False, ("moved",))).action
    assert isinstance(changed, Stopped)
    assert changed.code is StopCode.BRANCH_CHANGED
    step = conflicted()
    step = sync.transition(step.memory, Charged(step.memory.state))
    limited = SessionEnded(SessionStatus.RATE_LIMITED, None, "limit")
    assert isinstance(restored(sync.transition(step.memory, limited)).action, Released)


def test_a_clean_rebase_that_cannot_be_pushed_stops_push_rejected() -> None:
    """finish-sync failing without a resolver is a push problem, not a conflict."""
    step = sync.start(inputs(head_sha=HEAD), STATE)
    step, _ = run_through(
        step,
        sync.transition,
        [Checked(True), Rebased("up-to-date", HEAD), SyncFinished(False, HEAD, ("stale",))],
    )
    step = restored(step)
    assert isinstance(step.action, Stopped)
    assert step.action.code is StopCode.PUSH_REJECTED


def test_the_resolvers_reported_tokens_are_kept_beside_its_charge() -> None:
    """BUD-9: the session's usage lands on the rebase-pool charge it was launched with."""
    step = conflicted()
    paid = charge(step.memory.state, Role.RESOLVER, Budgets(), Limits())
    assert isinstance(paid, BudgetCharged)
    step = sync.transition(step.memory, Charged(paid.state))
    ended = SessionEnded(SessionStatus.REPLIED, resolver_reply(), used=1234)
    step = sync.transition(step.memory, ended)
    charged = step.memory.state.charges[-1]
    assert (charged.role, charged.pool, charged.used) == ("resolver", Pool.REBASE, 1234)
