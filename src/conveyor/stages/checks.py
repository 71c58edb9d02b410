"""The checks machine: verify, then the CI gate (a hold while pending), and the CI fixer."""

from __future__ import annotations

from dataclasses import replace

from conveyor.core.ci_gate import Verdict
from conveyor.core.replies import CheckFixReply
from conveyor.core.state import Stage
from conveyor.stages.checks_acts import TABLE
from conveyor.stages.checks_table import Checks, Event
from conveyor.stages.effects import (
    Began,
    Charged,
    Checked,
    Done,
    Pushed,
    Refused,
    Result,
    SessionEnded,
)
from conveyor.stages.effects_merge import CiRead, Verified
from conveyor.stages.machine import Machine, cannot_take, charge
from conveyor.stages.step import with_usage
from conveyor.stages.writer import Writer


def _red(run: Checks, problems: tuple[str, ...]) -> tuple[Event, Checks]:
    """Red checks: one more check-fix round, or the rounds are used up."""
    run = replace(run, problems=problems)
    if run.state.rounds.check_fix >= run.inputs.limits.max_check_fixes:
        return Event.EXHAUSTED, run
    rounds = run.state.rounds.model_copy(update={"check_fix": run.state.rounds.check_fix + 1})
    return Event.FAILED, replace(run, state=run.state.model_copy(update={"rounds": rounds}))


def _guarded(run: Checks, ok: bool, findings: tuple[str, ...]) -> tuple[Event, Checks]:
    if not ok:
        return Event.CHANGED, replace(run, note="\n".join(findings))
    # CHK-14, CHK-15: a head verified already (back from a CI wait, or from a round that
    # changed nothing) is not verified again; its CI gate is read.
    if run.state.verified_sha == run.inputs.head_sha:
        return Event.WAITING, run
    return Event.PASSED, run


def _ci(run: Checks, read: CiRead) -> tuple[Event, Checks]:
    run = replace(run, ci=read)
    match read.gate.verdict:
        case Verdict.PASSED | Verdict.UNGATED:
            return Event.PASSED, run
        case Verdict.PENDING:
            return Event.PENDING, run
        case Verdict.TIMED_OUT:
            return Event.TIMED_OUT, replace(run, note=read.gate.note)
        case Verdict.FAILED if read.unrelated:
            return Event.UNRELATED, run
        case Verdict.FAILED:
            return _red(run, tuple(f"CI check `{n}` failed" for n in read.gate.failing))
    raise AssertionError  # pragma: no cover - every verdict matches


def _replied(run: Checks, reply: CheckFixReply) -> tuple[Event, Checks]:
    event = Event.DONE if reply.status == "done" else Event.CANNOT_FIX
    return event, replace(run, reply=reply, note=reply.cause)


WRITER = Writer(
    Stage.CHECKS,
    CheckFixReply,
    Event,
    _replied,
    lambda run, ended: (Event.BROKEN, replace(run, note=ended.error or "no valid reply")),
)


def classify(run: Checks, result: Result) -> tuple[Event, Checks]:
    """The event a result is in the current phase, and the memory it leaves."""
    match result:
        case Began():
            return Event.BEGIN, run
        case Checked(ok=ok, findings=findings):
            return _guarded(run, ok, findings)
        case Verified(environment=note) as verified if note:
            return Event.ENVIRONMENT, replace(run, verified=verified, note=note)
        case Verified(passed=True) as verified:
            state = run.state.model_copy(update={"verified_sha": verified.head_sha})
            return Event.PASSED, replace(run, verified=verified, state=state)
        case Verified() as verified:
            return _red(replace(run, verified=verified), verified.failures)
        case CiRead():
            return _ci(run, result)
        case Done():
            return Event.DONE, run
        case Charged() | Refused():
            return charge(run, result, Event)
        case SessionEnded():
            return WRITER.ended(replace(run, state=with_usage(run.state, result)), result)
        case Pushed(head_sha=sha, new_paths=new):
            state = run.state.model_copy(update={"head_sha": sha})
            return (Event.CHANGED if new else Event.NOTHING), replace(run, state=state)
    raise cannot_take("the checks stage", result, run.phase)


MACHINE = Machine(TABLE, classify, Checks)
transition = MACHINE.transition
start = MACHINE.start
