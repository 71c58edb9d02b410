"""The checks machine: verify, then the CI gate (a hold while pending), and the CI fixer."""

from __future__ import annotations

from dataclasses import replace

from conveyor.core.ci_gate import Verdict
from conveyor.core.config import Role
from conveyor.core.flows import flows_of, has_code, has_wiki, pr_flow_action, pr_open
from conveyor.core.replies import CheckFixReply
from conveyor.core.state import Stage
from conveyor.stages.checks.acts import TABLE
from conveyor.stages.checks.table import EXITS, Checks, Event, Phase
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
from conveyor.stages.effects_merge import CiRead, Verified
from conveyor.stages.machine import Machine, cannot_take, charge
from conveyor.stages.stage_def import JobRole, StageDef
from conveyor.stages.step import adopt_head, with_pr, with_usage
from conveyor.stages.writer import Writer


def _red(run: Checks, problems: tuple[str, ...]) -> tuple[Event, Checks]:
    """Red checks: one more check-fix round, or the rounds are used up."""
    run = replace(run, problems=problems)
    if run.state.rounds.check_fix >= run.inputs.limits.max_check_fixes:
        return Event.EXHAUSTED, run
    rounds = run.state.rounds.model_copy(update={"check_fix": run.state.rounds.check_fix + 1})
    return Event.FAILED, replace(run, state=run.state.model_copy(update={"rounds": rounds}))


def _guarded(run: Checks, checked: Checked) -> tuple[Event, Checks]:
    if not checked.ok:
        return Event.CHANGED, replace(run, note="\n".join(checked.findings))
    run = replace(run, state=adopt_head(run.state, checked))
    if has_wiki(run.state.flows):
        return Event.WIKI, run
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
            named = tuple(f"CI check `{n}` failed" for n in read.gate.failing)
            return _red(run, read.problems or named)
    raise AssertionError  # pragma: no cover - every verdict matches


def _wiki_checked(run: Checks, ok: bool, findings: tuple[str, ...]) -> tuple[Event, Checks]:
    """wiki-check's verdict: red goes to the check fixer like a failing test (CHK-8)."""
    if not ok:
        return _red(run, findings)
    if not has_code(run.state.flows):
        return Event.WIKI_ONLY, run
    if run.state.verified_sha == run.inputs.head_sha:
        return Event.WAITING, run
    return Event.PASSED, run


def _pushed(run: Checks, pushed: Pushed) -> tuple[Event, Checks]:
    """The check fixer's push: the flows it leaves and what they ask of the PR (FLOW-3)."""
    flows = flows_of(code_changed=bool(pushed.changed_paths), wiki_ahead=pushed.wiki_ahead)
    update = {"head_sha": pushed.head_sha, "flows": flows}
    run = replace(run, state=run.state.model_copy(update=update))
    if not pushed.changed_anything:
        return Event.NOTHING, run
    action = pr_flow_action(flows, pr_open=pr_open(run.state))
    if action in ("close", "reopen"):
        return Event.PR_CHANGES, replace(run, action=action)
    return (Event.NOTHING if action == "stop" else Event.CHANGED), run


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


def _checked(run: Checks, checked: Checked) -> tuple[Event, Checks]:
    """A check's verdict: wiki-check's in its phase, else the branch guard's."""
    if run.phase is Phase.WIKI_CHECK:
        return _wiki_checked(run, checked.ok, checked.findings)
    return _guarded(run, checked)


def _verified(run: Checks, verified: Verified) -> tuple[Event, Checks]:
    """verify's verdict: an environment problem, a pass recorded on the state, or red."""
    run = replace(run, verified=verified)
    if verified.environment:
        return Event.ENVIRONMENT, replace(run, note=verified.environment)
    if verified.passed:
        state = run.state.model_copy(update={"verified_sha": verified.head_sha})
        return Event.PASSED, replace(run, state=state)
    return _red(run, verified.failures)


def classify(run: Checks, result: Result) -> tuple[Event, Checks]:
    """The event a result is in the current phase, and the memory it leaves."""
    match result:
        case Began():
            return Event.BEGIN, run
        case Checked():
            return _checked(run, result)
        case Verified():
            return _verified(run, result)
        case CiRead():
            return _ci(run, result)
        case Done():
            return Event.DONE, run
        case Charged() | Refused():
            return charge(run, result, Event)
        case SessionEnded():
            return WRITER.ended(replace(run, state=with_usage(run.state, result)), result)
        case Pushed():
            return _pushed(run, result)
        case PrSettled():
            return Event.DONE, replace(run, state=with_pr(run.state, result))
    raise cannot_take("the checks stage", result, run.phase)


MACHINE = Machine(TABLE, classify, Checks)
transition = MACHINE.transition
start = MACHINE.start
STAGE = StageDef(Stage.CHECKS, MACHINE, JobRole.WRITER, Role.CHECK_FIX)

__all__ = [
    "EXITS",
    "MACHINE",
    "STAGE",
    "TABLE",
    "Checks",
    "Event",
    "Phase",
    "classify",
    "start",
    "transition",
]
