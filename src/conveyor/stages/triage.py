"""The triage machine: one reader decides ready, needs-info, split-suggested or reject (TRI-*)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from conveyor.core.config import Role
from conveyor.core.replies import TriageReply
from conveyor.core.session import SessionStatus
from conveyor.core.state import IssueState, Stage
from conveyor.core.stops import StopCode
from conveyor.stages import launch
from conveyor.stages.effects import (
    Began,
    ChargeBudget,
    Charged,
    Done,
    Effect,
    PostComment,
    Refused,
    Result,
    SessionEnded,
)
from conveyor.stages.machine import Machine, cannot_take, charge
from conveyor.stages.prompts import triage as prompt
from conveyor.stages.stage_def import JobRole, QuickCheck, StageDef
from conveyor.stages.step import (
    Asked,
    End,
    Inputs,
    SavedAt,
    Stopped,
    Table,
    deferred,
    over_budget,
    with_usage,
)


class Phase(StrEnum):
    """Where triage is; the last six are ends."""

    START = "start"
    CHARGE = "charge"
    LAUNCH = "launch"
    POST_READY = "post-ready"
    POST_SPLIT = "post-split-suggested"
    POST_QUESTIONS = "post-questions"
    POST_REJECT = "post-reject"
    TO_SPEC = "to-spec"
    ASKED = "asked"
    REJECTED = "rejected"
    LIMIT = "triage-limit"
    OVER_BUDGET = "over-budget"
    DEFERRED = "deferred"


class Event(StrEnum):
    """What a result means to triage."""

    BEGIN = "begin"
    CHARGED = "charged"
    REFUSED = "refused"
    READY = "ready"
    SPLIT_SUGGESTED = "split-suggested"
    NEEDS_INFO = "needs-info"
    REJECT = "reject"
    FAILED = "failed"
    EXHAUSTED = "exhausted"
    DEFERRED = "deferred"
    POSTED = "posted"


EXITS: dict[Phase, dict[Event, Phase]] = {
    Phase.START: {Event.BEGIN: Phase.CHARGE, Event.EXHAUSTED: Phase.LIMIT},
    Phase.CHARGE: {Event.CHARGED: Phase.LAUNCH, Event.REFUSED: Phase.OVER_BUDGET},
    Phase.LAUNCH: {
        Event.READY: Phase.POST_READY,
        Event.SPLIT_SUGGESTED: Phase.POST_SPLIT,
        Event.NEEDS_INFO: Phase.POST_QUESTIONS,
        Event.REJECT: Phase.POST_REJECT,
        Event.FAILED: Phase.CHARGE,
        Event.EXHAUSTED: Phase.LIMIT,
        Event.DEFERRED: Phase.DEFERRED,
    },
    Phase.POST_READY: {Event.POSTED: Phase.TO_SPEC},
    Phase.POST_SPLIT: {Event.POSTED: Phase.TO_SPEC},
    Phase.POST_QUESTIONS: {Event.POSTED: Phase.ASKED},
    Phase.POST_REJECT: {Event.POSTED: Phase.REJECTED},
    Phase.TO_SPEC: {},
    Phase.ASKED: {},
    Phase.REJECTED: {},
    Phase.LIMIT: {},
    Phase.OVER_BUDGET: {},
    Phase.DEFERRED: {},
}


@dataclass(frozen=True)
class Triage:
    """Triage's memory: the phase, the issue's state, the last reply and why it failed."""

    inputs: Inputs
    state: IssueState
    phase: Phase = Phase.START
    reply: TriageReply | None = None
    findings: tuple[str, ...] = ()
    attempt: int = 0
    note: str = ""


def reply_findings(reply: TriageReply, depth: int) -> tuple[str, ...]:
    """Triage's quick checks: questions for needs-info, a reason for reject and split."""
    found: list[str] = []
    if reply.decision == "needs-info" and not reply.questions:
        found.append("questions: needs-info needs 1 to 5 questions")
    if reply.decision in ("reject", "split-suggested") and not (reply.reason or "").strip():
        found.append(f"reason: {reply.decision} needs a reason")
    if reply.decision == "split-suggested" and depth > 0:
        found.append("decision: a sub-issue cannot be split again (TRI-7)")
    return tuple(found)


def split_required(reply: TriageReply, oversize: str | None, depth: int) -> TriageReply:
    """A `ready` for an issue a person sized above intake's `max_size` becomes a suggested
    split with that reason (busybees sends such an issue back to triage to be split); a
    sub-issue cannot split again (TRI-7), so its reply stands."""
    if oversize is None or depth > 0 or reply.decision != "ready":
        return reply
    return reply.model_copy(update={"decision": "split-suggested", "reason": oversize})


def _failed(run: Triage, why: str, findings: tuple[str, ...] = ()) -> tuple[Event, Triage]:
    rounds = run.state.rounds.model_copy(
        update={"triage_attempts": run.state.rounds.triage_attempts + 1}
    )
    state = run.state.model_copy(update={"rounds": rounds})
    left = rounds.triage_attempts < run.inputs.limits.triage_attempts
    event = Event.FAILED if left else Event.EXHAUSTED
    return event, replace(run, state=state, findings=(why, *findings), note=why)


def classify(run: Triage, result: Result) -> tuple[Event, Triage]:
    """The event a result is in the current phase, and the memory it leaves."""
    if isinstance(result, SessionEnded):
        run = replace(run, state=with_usage(run.state, result))
    match result:
        case Began():
            exhausted = run.state.rounds.triage_attempts >= run.inputs.limits.triage_attempts
            return (Event.EXHAUSTED if exhausted else Event.BEGIN), run
        case Charged() | Refused():
            return charge(run, result, Event)
        case SessionEnded(error=error) if result.deferred:
            return Event.DEFERRED, replace(run, note=error or "rate limited")
        case SessionEnded(status=SessionStatus.REPLIED, reply=TriageReply() as reply):
            reply = split_required(reply, run.inputs.oversize, run.state.depth)
            if findings := reply_findings(reply, run.state.depth):
                return _failed(run, "the triage reply was refused", findings)
            events = {
                "ready": Event.READY,
                "split-suggested": Event.SPLIT_SUGGESTED,
                "needs-info": Event.NEEDS_INFO,
                "reject": Event.REJECT,
            }
            return events[reply.decision], replace(run, reply=reply)
        case SessionEnded(error=error, findings=findings):
            why = f"the triage session failed: {error or 'no valid reply'}"
            return _failed(run, why, findings)
        case Done():
            return Event.POSTED, run
    raise cannot_take("triage", result, run.phase)


def _reply(run: Triage) -> TriageReply:
    assert run.reply is not None, "a triage decision phase needs the reply"
    return run.reply


def _launch(run: Triage) -> Effect:
    data = prompt.TriageData(
        issue=run.inputs.issue,
        issue_file=run.inputs.issue_file,
        base=run.inputs.base,
        soft=run.inputs.limits.context_soft,
        hard=run.inputs.limits.context_hard,
        questions=run.inputs.limits.triage_questions,
        spec_so_far=run.state.spec,
        findings=run.findings,
        oversize=run.inputs.oversize if run.state.depth == 0 else None,
        branch_commits=run.inputs.branch_commits,
        handoff_file=run.inputs.handoff_file if run.inputs.handoff_kept else None,
    )
    return launch.reader("triage", Role.TRIAGE, prompt.render(data), run.attempt)


def comment(run: Triage) -> str:
    """The signed triage comment: the decision, its notes or questions, what was withheld."""
    reply = _reply(run)
    lines = [f"### Triage: {reply.decision}", "", reply.summary.strip()]
    if reply.reason:
        lines += ["", f"Reason: {reply.reason.strip()}"]
    if reply.notes.strip() and reply.decision in ("ready", "split-suggested"):
        lines += ["", "Notes for the spec writer:", "", reply.notes.strip()]
    withheld = run.inputs.withheld
    said = "1 comment was" if withheld == 1 else f"{withheld} comments were"
    lines += ["", f"{said} withheld: written by people the pipeline does not trust."]
    return "\n".join(lines)


def _post(run: Triage) -> Effect:
    return PostComment(kind="triage", role="triage", text=comment(run))


def _to_spec(run: Triage) -> End:
    reply = _reply(run)
    suggested = reply.decision == "split-suggested"
    plan = reply.notes.strip()
    if suggested:
        plan = f"{plan}\n\nSplit suggested: {(reply.reason or '').strip()}".strip()
    state = run.state.model_copy(update={"plan": plan or None, "split_suggested": suggested})
    return SavedAt(Stage.SPEC, state)


def _asked(run: Triage) -> End:
    return Asked(tuple(_reply(run).questions), run.state)


TABLE: Table[Phase, Event, Triage] = Table(
    name="triage",
    start=Phase.START,
    exits=EXITS,
    effects={
        Phase.CHARGE: lambda run: ChargeBudget(Role.TRIAGE),
        Phase.LAUNCH: _launch,
        Phase.POST_READY: _post,
        Phase.POST_SPLIT: _post,
        Phase.POST_QUESTIONS: _post,
        Phase.POST_REJECT: _post,
    },
    ends={
        Phase.TO_SPEC: _to_spec,
        Phase.ASKED: _asked,
        Phase.REJECTED: lambda run: Stopped(
            StopCode.TRIAGE_REJECTED, (_reply(run).reason or "").strip(), run.state
        ),
        Phase.LIMIT: lambda run: Stopped(
            StopCode.TRIAGE_LIMIT,
            "triage failed on every attempt",
            run.state,
            "\n".join(run.findings) or run.note,
        ),
        Phase.OVER_BUDGET: over_budget,
        Phase.DEFERRED: deferred,
    },
)


MACHINE = Machine(TABLE, classify, Triage)
transition = MACHINE.transition
start = MACHINE.start
STAGE = StageDef(
    Stage.TRIAGE,
    MACHINE,
    JobRole.READER,
    Role.TRIAGE,
    quick_check=QuickCheck("triage", TriageReply, reply_findings),
)
