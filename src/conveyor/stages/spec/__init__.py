"""The spec machine: a writer specifies the issue and commits failing tests (SPEC-*)."""

from __future__ import annotations

from dataclasses import replace

from conveyor.core.config import Role
from conveyor.core.flows import flows_of, pr_flow_action, pr_open
from conveyor.core.replies import SpecReply
from conveyor.core.state import Stage
from conveyor.stages.effects import (
    Began,
    Charged,
    Checked,
    Done,
    PrOpened,
    PrSettled,
    Pushed,
    Refused,
    Result,
    SessionEnded,
    SuiteRan,
)
from conveyor.stages.machine import Machine, cannot_take, charge
from conveyor.stages.spec.acts import TABLE, spec_text
from conveyor.stages.spec.table import EXITS, Event, Phase, Spec
from conveyor.stages.spec_text import spec_findings
from conveyor.stages.stage_def import JobRole, QuickCheck, StageDef
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


def _wiki_pushed(run: Spec, pushed: Pushed) -> tuple[Event, Spec]:
    """The wiki-only path's push: only the wiki may hold the change (FLOW-10)."""
    flows = flows_of(code_changed=bool(pushed.changed_paths), wiki_ahead=pushed.wiki_ahead)
    if flows != "wiki":
        why = f"wiki_only, but the change's flows are {flows!r}: only wiki pages may change"
        return _failed(run, why)
    action = pr_flow_action(flows, pr_open=pr_open(run.state))
    return (Event.CLOSE if action == "close" else Event.WIKI_ONLY), replace(run, pr=run.state.pr)


def _broken(run: Spec, ended: SessionEnded) -> tuple[Event, Spec]:
    why = f"the spec writer's session failed: {ended.error or 'no valid reply'}"
    return _failed(run, why, ended.findings)


WRITER = Writer(
    Stage.SPEC, SpecReply, Event, _replied, _broken, lambda run: replace(run, findings=())
)


def _began(run: Spec) -> Spec:
    """The spec's start: where its own commits (and wiki pages) begin, unless saved already."""
    state = run.state
    if state.start_sha is None:
        state = state.model_copy(update={"start_sha": run.inputs.head_sha})
    if state.start_wiki_sha is None and run.inputs.wiki_head is not None:
        state = state.model_copy(update={"start_wiki_sha": run.inputs.wiki_head})
    return replace(run, state=state)


def _checked(run: Spec, checked: Checked) -> tuple[Event, Spec]:
    """The commit check: an environment problem, a pass (long or not), or failed."""
    if run.phase is Phase.CHECK_COMMITS and checked.environment:
        return Event.ENVIRONMENT, replace(run, note=checked.environment)
    if run.phase is Phase.CHECK_COMMITS and checked.ok:
        long = len(spec_text(run)) > run.inputs.limits.spec_limit_chars
        run = replace(run, spec_tests=checked.spec_tests)
        return (Event.PASSED_LONG if long else Event.PASSED), run
    return _failed(run, "the spec writer's commits failed the commit check", checked.findings)


def _suite(run: Spec, ran: SuiteRan) -> tuple[Event, Spec]:
    """A no-work spec's tests on the base: they must pass there."""
    if ran.passed:
        return Event.PASSED, run
    why = "no-work, but the spec writer's tests fail on the base"
    return _failed(run, why, (ran.detail,) if ran.detail else ())


def _done(run: Spec) -> Event:
    """A done op; the posted spec of a wiki-only change goes the wiki's way (FLOW-10)."""
    wiki_only = run.reply is not None and run.reply.wiki_only
    return Event.WIKI_ONLY if run.phase is Phase.POST_SPEC and wiki_only else Event.DONE


def classify(run: Spec, result: Result) -> tuple[Event, Spec]:
    """The event a result is in the current phase, and the memory it leaves."""
    match result:
        case Began():
            return Event.BEGIN, _began(run)
        case Charged() | Refused():
            return charge(run, result, Event)
        case SessionEnded():
            return WRITER.ended(replace(run, state=with_usage(run.state, result)), result)
        case Checked():
            return _checked(run, result)
        case SuiteRan():
            return _suite(run, result)
        case PrOpened(number=number, head_sha=sha):
            return Event.DONE, replace(run, pr=number, spec_sha=sha)
        case Pushed():
            return _wiki_pushed(run, result)
        case PrSettled(number=number):
            return Event.DONE, replace(run, pr=number)
        case Done():
            return _done(run), run
    raise cannot_take("the spec stage", result, run.phase)


MACHINE = Machine(TABLE, classify, Spec)
transition = MACHINE.transition
start = MACHINE.start
STAGE = StageDef(
    Stage.SPEC,
    MACHINE,
    JobRole.WRITER,
    Role.SPEC,
    measures_start=True,
    quick_check=QuickCheck("spec", SpecReply, spec_findings),
)

__all__ = [
    "EXITS",
    "MACHINE",
    "STAGE",
    "TABLE",
    "Event",
    "Phase",
    "Spec",
    "classify",
    "start",
    "transition",
]
