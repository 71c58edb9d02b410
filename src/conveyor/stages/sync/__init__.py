"""The sync machine: rebase onto the base (a stacked issue: its own commits onto its target);
a resolver finishes a conflict; finish-sync pushes."""

from __future__ import annotations

from dataclasses import replace

from conveyor.core.config import Role
from conveyor.core.flows import flows_of, pr_flow_action, pr_open
from conveyor.core.replies import ResolverReply
from conveyor.core.state import IssueState, Stage
from conveyor.stages.effects import (
    Began,
    Charged,
    Checked,
    Done,
    PrSettled,
    Refused,
    Result,
    SessionEnded,
)
from conveyor.stages.effects_merge import Rebased, SyncFinished
from conveyor.stages.machine import Machine, cannot_take
from conveyor.stages.stage_def import JobRole, StageDef
from conveyor.stages.step import adopt_head, with_pr, with_usage
from conveyor.stages.sync.acts import TABLE
from conveyor.stages.sync.table import EXITS, Event, Phase, Sync
from conveyor.stages.writer import Writer


def _used_up(run: Sync) -> bool:
    return run.state.rounds.conflict_fixes >= run.inputs.limits.max_conflict_fixes


def _charged(run: Sync, state: IssueState) -> tuple[Event, Sync]:
    if run.continuation == 0 and not run.resolved:
        # A fresh resolver attempt counts towards max_conflict_fixes (SYNC-6).
        rounds = state.rounds.model_copy(update={"conflict_fixes": state.rounds.conflict_fixes + 1})
        state = state.model_copy(update={"rounds": rounds})
    return Event.CHARGED, replace(run, state=state, attempt=run.attempt + 1, resolved=True)


def _replied(run: Sync, reply: ResolverReply) -> tuple[Event, Sync]:
    if reply.status == "done":
        return Event.DONE, replace(run, reply=reply)
    return Event.CANNOT_FIX, replace(run, reply=reply, note=reply.summary)


WRITER = Writer(
    Stage.SYNC,
    ResolverReply,
    Event,
    _replied,
    # A failed resolver is a cannot-fix: a fresh one tries in the next job (SYNC-5).
    lambda run, ended: (Event.CANNOT_FIX, replace(run, note=ended.error or "no valid reply")),
)


def _guarded(run: Sync, checked: Checked) -> tuple[Event, Sync]:
    """The branch guard: the head is the one saved, or it changed under the job."""
    if checked.ok:
        return Event.PASSED, replace(run, state=adopt_head(run.state, checked))
    return Event.CHANGED, replace(run, note="\n".join(checked.findings))


def _rebased(run: Sync, rebased: Rebased) -> tuple[Event, Sync]:
    """The rebase: clean, or conflicted (and a resolver left to try, or none)."""
    if rebased.outcome != "conflict":
        return Event.CLEAN, replace(run, stack=rebased.stack)
    run = replace(run, conflicts=rebased.conflicts, stack=rebased.stack)
    return (Event.EXHAUSTED if _used_up(run) else Event.CONFLICT), run


def _finished(run: Sync, done: SyncFinished) -> tuple[Event, Sync]:
    if done.ok:
        flows = flows_of(code_changed=done.code_changed, wiki_ahead=done.wiki_ahead)
        update: dict[str, object] = {"head_sha": done.head_sha, "ci_wait": None, "flows": flows}
        if run.stack is not None:
            # The sync replies where the stacked branch now is (STK-3): still on P, or unstacked.
            update["stacked_on"] = run.stack.stacked_on
        run = replace(run, state=run.state.model_copy(update=update))
        action = pr_flow_action(flows, pr_open=pr_open(run.state))
        if action == "stop":
            return Event.NOTHING_LEFT, run
        if action == "go":
            return Event.FINISHED, run
        return Event.PR_CHANGES, replace(run, action=action)
    run = replace(run, note="\n".join(done.findings))
    if not run.resolved:
        return Event.PUSH_FAILED, run
    return (Event.REJECTED_LAST if _used_up(run) else Event.REJECTED), run


def classify(run: Sync, result: Result) -> tuple[Event, Sync]:
    """The event a result is in the current phase, and the memory it leaves."""
    match result:
        case Began():
            return Event.BEGIN, run
        case Checked():
            return _guarded(run, result)
        case Rebased():
            return _rebased(run, result)
        case Charged(state=state):
            return _charged(run, state)
        case Refused(reason=reason):
            return Event.REFUSED, replace(run, note=reason)
        case SessionEnded():
            return WRITER.ended(replace(run, state=with_usage(run.state, result)), result)
        case SyncFinished():
            return _finished(run, result)
        case PrSettled():
            return Event.SETTLED, replace(run, state=with_pr(run.state, result))
        case Done():
            return Event.RESTORED, run
    raise cannot_take("the sync stage", result, run.phase)


MACHINE = Machine(TABLE, classify, Sync)
transition = MACHINE.transition
start = MACHINE.start
STAGE = StageDef(Stage.SYNC, MACHINE, JobRole.WRITER, Role.RESOLVER)

__all__ = [
    "EXITS",
    "MACHINE",
    "STAGE",
    "TABLE",
    "Event",
    "Phase",
    "Sync",
    "classify",
    "start",
    "transition",
]
