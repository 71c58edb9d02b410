"""The fix machine: a writer resolves (or disputes) the open findings, then re-review (FIX-*)."""

from __future__ import annotations

from dataclasses import replace

from conveyor.core.config import Role
from conveyor.core.finding_loops import apply_fix
from conveyor.core.findings import rereview_lenses
from conveyor.core.flows import flows_of, pr_flow_action, pr_open
from conveyor.core.replies import FixReply
from conveyor.core.state import Rereview, Stage
from conveyor.stages.effects import (
    Began,
    Charged,
    Done,
    PrSettled,
    Pushed,
    Refused,
    Result,
    SessionEnded,
)
from conveyor.stages.fix.acts import TABLE
from conveyor.stages.fix.table import EXITS, Event, Fix, Phase
from conveyor.stages.machine import Machine, cannot_take, charge
from conveyor.stages.stage_def import JobRole, StageDef
from conveyor.stages.step import with_pr, with_usage
from conveyor.stages.writer import WRITER_ATTEMPTS, Writer


def _begin(run: Fix) -> Event:
    if not run.state.open_blocking():
        return Event.NOTHING_OPEN
    if run.state.rounds.fix >= run.inputs.limits.max_fix_rounds:
        return Event.NO_ROUNDS
    return Event.BEGIN


def _replied(run: Fix, reply: FixReply) -> tuple[Event, Fix]:
    limits = run.inputs.limits
    done = apply_fix(run.state, reply, run.state.spec, limits.max_disputes_per_finding)
    if done.stop is not None:
        return Event.DISPUTED_ACCEPTANCE, replace(run, reply=reply, stop=done.stop)
    return Event.DONE, replace(run, state=done.state, reply=reply, refused=done.refused)


def _broken(run: Fix, ended: SessionEnded) -> tuple[Event, Fix]:
    failures = run.failures + 1
    note = f"the fixer's session failed: {ended.error or 'no valid reply'}"
    run = replace(run, failures=failures, note=note)
    return (Event.FAILED if failures < WRITER_ATTEMPTS else Event.EXHAUSTED), run


WRITER = Writer(Stage.FIX, FixReply, Event, _replied, _broken)


def classify(run: Fix, result: Result) -> tuple[Event, Fix]:
    """The event a result is in the current phase, and the memory it leaves."""
    match result:
        case Began():
            return _begin(run), run
        case Charged() | Refused():
            return charge(run, result, Event)
        case SessionEnded():
            return WRITER.ended(replace(run, state=with_usage(run.state, result)), result)
        case Pushed(head_sha=head, changed_paths=changed, wiki_ahead=ahead):
            again = Rereview(base_sha=run.reviewed_sha, lenses=rereview_lenses(run.state))
            flows = flows_of(code_changed=bool(changed), wiki_ahead=ahead)
            update = {"head_sha": head, "changed_paths": changed, "rereview": again, "flows": flows}
            run = replace(run, state=run.state.model_copy(update=update))
            action = pr_flow_action(flows, pr_open=pr_open(run.state))
            events = {"stop": Event.NOTHING_LEFT, "go": Event.PUSHED}
            return events.get(action, Event.PR_CHANGES), replace(run, action=action)
        case PrSettled():
            return Event.SETTLED, replace(run, state=with_pr(run.state, result))
        case Done():
            return (Event.RESET if run.phase is Phase.RESET else Event.POSTED), run
    raise cannot_take("the fix stage", result, run.phase)


MACHINE = Machine(TABLE, classify, Fix)
transition = MACHINE.transition
start = MACHINE.start
STAGE = StageDef(Stage.FIX, MACHINE, JobRole.WRITER, Role.FIX, restores_spec=True)

__all__ = [
    "EXITS",
    "MACHINE",
    "STAGE",
    "TABLE",
    "Event",
    "Fix",
    "Phase",
    "classify",
    "start",
    "transition",
]
