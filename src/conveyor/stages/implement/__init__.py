"""The implement machine: a writer makes the spec's tests pass; open-pr readies the PR (IMPL-*)."""

from __future__ import annotations

from dataclasses import replace

from conveyor.core.config import Role
from conveyor.core.flows import flows_of, pr_flow_action, pr_open
from conveyor.core.replies import ImplementReply
from conveyor.core.state import Stage
from conveyor.stages.effects import (
    Began,
    Charged,
    Checked,
    Done,
    PrSettled,
    Pushed,
    Refused,
    Result,
    SessionEnded,
)
from conveyor.stages.implement.acts import TABLE
from conveyor.stages.implement.table import EXITS, Event, Implement, Phase
from conveyor.stages.machine import Machine, cannot_take, charge
from conveyor.stages.stage_def import JobRole, QuickCheck, StageDef
from conveyor.stages.step import with_pr, with_usage
from conveyor.stages.writer import WRITER_ATTEMPTS, Writer


def _failed(run: Implement, why: str, findings: tuple[str, ...] = ()) -> tuple[Event, Implement]:
    failures = run.failures + 1
    run = replace(run, failures=failures, findings=(why, *findings), note=why)
    return (Event.FAILED if failures < WRITER_ATTEMPTS else Event.EXHAUSTED), run


def _broken(run: Implement, ended: SessionEnded) -> tuple[Event, Implement]:
    why = f"the implementer's session failed: {ended.error or 'no valid reply'}"
    return _failed(run, why, ended.findings)


def _replied(run: Implement, reply: ImplementReply) -> tuple[Event, Implement]:
    return (Event.BLOCKED if reply.status == "blocked" else Event.DONE), replace(run, reply=reply)


WRITER = Writer(
    Stage.IMPLEMENT, ImplementReply, Event, _replied, _broken, lambda run: replace(run, findings=())
)


def classify(run: Implement, result: Result) -> tuple[Event, Implement]:
    """The event a result is in the current phase, and the memory it leaves."""
    match result:
        case Began():
            return Event.BEGIN, run
        case Charged() | Refused():
            return charge(run, result, Event)
        case SessionEnded():
            return WRITER.ended(replace(run, state=with_usage(run.state, result)), result)
        case Checked(ok=True):
            return Event.PASSED, run
        case Checked(findings=findings):
            event, run = _failed(run, "the spec writer's tests were changed", findings)
            still = Event.TESTS_STILL_CHANGED
            return (Event.TESTS_CHANGED if event is Event.FAILED else still), run
        case Pushed():
            return _pushed(run, result)
        case PrSettled():
            return Event.DONE, replace(run, state=with_pr(run.state, result))
        case Done():
            return Event.DONE, run
    raise cannot_take("the implement stage", result, run.phase)


def _pushed(run: Implement, pushed: Pushed) -> tuple[Event, Implement]:
    """open-pr's push: the flows it leaves (FLOW-2), and what they ask of the PR (FLOW-3)."""
    flows = flows_of(code_changed=bool(pushed.changed_paths), wiki_ahead=pushed.wiki_ahead)
    update = {"head_sha": pushed.head_sha, "changed_paths": pushed.changed_paths, "flows": flows}
    run = replace(run, state=run.state.model_copy(update=update))
    if not pushed.changed_anything:
        return Event.NOTHING, run
    events = {
        "stop": Event.NOTHING,
        "close": Event.WIKI_ONLY,
        "reopen": Event.CHANGED,
        "go": Event.CHANGED,
    }
    return events[pr_flow_action(flows, pr_open=pr_open(run.state))], run


MACHINE = Machine(TABLE, classify, Implement)
transition = MACHINE.transition
start = MACHINE.start
STAGE = StageDef(
    Stage.IMPLEMENT,
    MACHINE,
    JobRole.WRITER,
    Role.IMPLEMENT,
    restores_spec=True,
    quick_check=QuickCheck("implement", ImplementReply),
)

__all__ = [
    "EXITS",
    "MACHINE",
    "STAGE",
    "TABLE",
    "Event",
    "Implement",
    "Phase",
    "classify",
    "start",
    "transition",
]
