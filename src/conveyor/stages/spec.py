"""The spec machine: a writer specifies the issue and commits failing tests (SPEC-*)."""

from __future__ import annotations

from dataclasses import replace

from conveyor.core.replies import SpecReply
from conveyor.core.state import Stage
from conveyor.stages.effects import (
    Began,
    Charged,
    Checked,
    Done,
    PrOpened,
    Refused,
    Result,
    SessionEnded,
    SuiteRan,
)
from conveyor.stages.machine import Machine, cannot_take, charge
from conveyor.stages.spec_acts import TABLE, spec_text
from conveyor.stages.spec_table import Event, Phase, Spec
from conveyor.stages.spec_text import spec_findings
from conveyor.stages.step import with_usage
from conveyor.stages.writer import Writer


def _failed(run: Spec, why: str, findings: tuple[str, ...] = ()) -> tuple[Event, Spec]:
    failures = run.failures + 1
    rounds = run.state.rounds.model_copy(update={"spec_attempts": failures})
    run = replace(
        run,
        state=run.state.model_copy(update={"rounds": rounds}),
        failures=failures,
        findings=(why, *findings),
        note=why,
    )
    return (Event.FAILED if failures < run.inputs.limits.spec_attempts else Event.EXHAUSTED), run


def _replied(run: Spec, reply: SpecReply) -> tuple[Event, Spec]:
    if findings := spec_findings(reply, run.state.depth):
        return _failed(run, "the spec writer's reply was refused", findings)
    run = replace(run, reply=reply)
    if reply.decision == "split":
        return (Event.SPLIT if run.state.depth == 0 else Event.SPLIT_REFUSED), run
    events = {"ready": Event.READY, "needs-info": Event.NEEDS_INFO, "no-work": Event.NO_WORK}
    return events[reply.decision], run


def _broken(run: Spec, ended: SessionEnded) -> tuple[Event, Spec]:
    why = f"the spec writer's session failed: {ended.error or 'no valid reply'}"
    return _failed(run, why, ended.findings)


WRITER = Writer(
    Stage.SPEC, SpecReply, Event, _replied, _broken, lambda run: replace(run, findings=())
)


def classify(run: Spec, result: Result) -> tuple[Event, Spec]:
    """The event a result is in the current phase, and the memory it leaves."""
    match result:
        case Began():
            state = run.state
            if state.start_sha is None:
                state = state.model_copy(update={"start_sha": run.inputs.head_sha})
            return Event.BEGIN, replace(run, state=state)
        case Charged() | Refused():
            return charge(run, result, Event)
        case SessionEnded():
            return WRITER.ended(replace(run, state=with_usage(run.state, result)), result)
        case Checked(environment=note) if note and run.phase is Phase.CHECK_COMMITS:
            return Event.ENVIRONMENT, replace(run, note=note)
        case Checked(ok=True) if run.phase is Phase.CHECK_COMMITS:
            long = len(spec_text(run)) > run.inputs.limits.spec_limit_chars
            return (Event.PASSED_LONG if long else Event.PASSED), run
        case Checked(findings=findings):
            return _failed(run, "the spec writer's commits failed the commit check", findings)
        case SuiteRan(passed=True):
            return Event.PASSED, run
        case SuiteRan(detail=detail):
            why = "no-work, but the spec writer's tests fail on the base"
            return _failed(run, why, (detail,) if detail else ())
        case PrOpened(number=number, head_sha=sha):
            return Event.DONE, replace(run, pr=number, spec_sha=sha)
        case Done():
            return Event.DONE, run
    raise cannot_take("the spec stage", result, run.phase)


MACHINE = Machine(TABLE, classify, Spec)
transition = MACHINE.transition
start = MACHINE.start
