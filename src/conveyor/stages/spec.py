"""The spec machine: a writer specifies the issue and commits failing tests (SPEC-*)."""

from __future__ import annotations

from dataclasses import replace

from conveyor.core.replies import SpecReply
from conveyor.core.session import SessionStatus
from conveyor.core.state import IssueState, Stage
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
from conveyor.stages.spec_acts import TABLE, spec_text
from conveyor.stages.spec_table import EXITS, Event, Phase, Spec
from conveyor.stages.spec_text import spec_findings
from conveyor.stages.step import IllegalMove, Inputs, Step, advance, with_usage


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


def _handoff(run: Spec) -> tuple[Event, Spec]:
    if run.continuation >= run.inputs.limits.max_continuations:
        return Event.TOO_MANY_HANDOFFS, run
    counts = {**run.state.continuations, Stage.SPEC: run.continuation + 1}
    return Event.HANDOFF, replace(
        run, state=run.state.model_copy(update={"continuations": counts}), findings=()
    )


def _replied(run: Spec, reply: SpecReply) -> tuple[Event, Spec]:
    if reply.status == "handoff":
        return _handoff(run)
    if findings := spec_findings(reply, run.state.depth):
        return _failed(run, "the spec writer's reply was refused", findings)
    run = replace(run, reply=reply)
    if reply.decision == "split":
        return (Event.SPLIT if run.state.depth == 0 else Event.SPLIT_REFUSED), run
    events = {"ready": Event.READY, "needs-info": Event.NEEDS_INFO, "no-work": Event.NO_WORK}
    return events[reply.decision], run


def _session(run: Spec, ended: SessionEnded) -> tuple[Event, Spec]:
    match ended:
        case SessionEnded(status=SessionStatus.RATE_LIMITED, error=error):
            return Event.DEFERRED, replace(run, note=error or "rate limited")
        case SessionEnded(status=SessionStatus.HANDOFF | SessionStatus.CONTEXT_STOPPED):
            return _handoff(run)
        case SessionEnded(status=SessionStatus.REPLIED, reply=SpecReply() as reply):
            return _replied(run, reply)
        case SessionEnded(error=error, findings=findings):
            why = f"the spec writer's session failed: {error or 'no valid reply'}"
            return _failed(run, why, findings)
    raise AssertionError  # pragma: no cover - every SessionEnded matches the last case


def classify(run: Spec, result: Result) -> tuple[Event, Spec]:
    """The event a result is in the current phase, and the memory it leaves."""
    match result:
        case Began():
            state = run.state
            if state.start_sha is None:
                state = state.model_copy(update={"start_sha": run.inputs.head_sha})
            return Event.BEGIN, replace(run, state=state)
        case Charged(state=state):
            return Event.CHARGED, replace(run, state=state, attempt=run.attempt + 1)
        case Refused(reason=reason):
            return Event.REFUSED, replace(run, note=reason)
        case SessionEnded(used=used):
            return _session(replace(run, state=with_usage(run.state, used)), result)
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
    msg = f"the spec stage cannot take {type(result).__name__} in {run.phase.value!r}"
    raise IllegalMove(msg)


def transition(run: Spec, result: Result) -> Step[Spec]:
    """The spec stage's one transition: look the event up in `EXITS`, then act on the phase."""
    event, run = classify(run, result)
    run = replace(run, phase=advance(EXITS, run.phase, event))
    return Step(run, TABLE.act(run.phase, run))


def start(inputs: Inputs, state: IssueState) -> Step[Spec]:
    """The spec stage's first step."""
    return transition(Spec(inputs, state), Began())
