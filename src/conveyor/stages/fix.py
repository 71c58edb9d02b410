"""The fix machine: a writer resolves (or disputes) the open findings, then re-review (FIX-*)."""

from __future__ import annotations

from dataclasses import replace

from conveyor.core.config import Role
from conveyor.core.finding_loops import apply_fix
from conveyor.core.findings import rereview_lenses, stop_code
from conveyor.core.replies import FixReply
from conveyor.core.session import SessionRole, SessionStatus
from conveyor.core.state import IssueState, Rereview, Stage
from conveyor.core.stops import StopCode
from conveyor.stages.effects import (
    Began,
    ChargeBudget,
    Charged,
    Done,
    Effect,
    LaunchSession,
    PushBranch,
    Pushed,
    Refused,
    ResetBranch,
    Result,
    SessionEnded,
)
from conveyor.stages.effects_review import PostPrComment
from conveyor.stages.fix_table import EXITS, Event, Fix, Phase
from conveyor.stages.prompts import fix as prompt
from conveyor.stages.step import (
    IllegalMove,
    Inputs,
    Released,
    SavedAt,
    Step,
    Stopped,
    Table,
    advance,
)

WRITER_ATTEMPTS = 2


def _begin(run: Fix) -> Event:
    if not run.state.open_blocking():
        return Event.NOTHING_OPEN
    if run.state.rounds.fix >= run.inputs.limits.max_fix_rounds:
        return Event.NO_ROUNDS
    return Event.BEGIN


def _handoff(run: Fix) -> tuple[Event, Fix]:
    if run.continuation >= run.inputs.limits.max_continuations:
        return Event.TOO_MANY_HANDOFFS, run
    counts = {**run.state.continuations, Stage.FIX: run.continuation + 1}
    return Event.HANDOFF, replace(run, state=run.state.model_copy(update={"continuations": counts}))


def _replied(run: Fix, reply: FixReply) -> tuple[Event, Fix]:
    if reply.status == "handoff":
        return _handoff(run)
    limits = run.inputs.limits
    done = apply_fix(run.state, reply, run.state.spec, limits.max_disputes_per_finding)
    if done.stop is not None:
        return Event.DISPUTED_ACCEPTANCE, replace(run, reply=reply, stop=done.stop)
    return Event.DONE, replace(run, state=done.state, reply=reply, refused=done.refused)


def _session(run: Fix, ended: SessionEnded) -> tuple[Event, Fix]:
    match ended:
        case SessionEnded(status=SessionStatus.RATE_LIMITED, error=error):
            return Event.DEFERRED, replace(run, note=error or "rate limited")
        case SessionEnded(status=SessionStatus.HANDOFF | SessionStatus.CONTEXT_STOPPED):
            return _handoff(run)
        case SessionEnded(status=SessionStatus.REPLIED, reply=FixReply() as reply):
            return _replied(run, reply)
    failures = run.failures + 1
    note = f"the fixer's session failed: {ended.error or 'no valid reply'}"
    run = replace(run, failures=failures, note=note)
    return (Event.FAILED if failures < WRITER_ATTEMPTS else Event.EXHAUSTED), run


def classify(run: Fix, result: Result) -> tuple[Event, Fix]:
    """The event a result is in the current phase, and the memory it leaves."""
    match result:
        case Began():
            return _begin(run), run
        case Charged(state=state):
            return Event.CHARGED, replace(run, state=state, attempt=run.attempt + 1)
        case Refused(reason=reason):
            return Event.REFUSED, replace(run, note=reason)
        case SessionEnded():
            return _session(run, result)
        case Pushed(head_sha=head, changed_paths=changed):
            again = Rereview(base_sha=run.reviewed_sha, lenses=rereview_lenses(run.state))
            update = {"head_sha": head, "changed_paths": changed, "rereview": again}
            return Event.PUSHED, replace(run, state=run.state.model_copy(update=update))
        case Done():
            return (Event.RESET if run.phase is Phase.RESET else Event.POSTED), run
    msg = f"the fix stage cannot take {type(result).__name__} in {run.phase.value!r}"
    raise IllegalMove(msg)


def transition(run: Fix, result: Result) -> Step[Fix]:
    """The fix stage's one transition: look the event up, then act on the new phase."""
    event, run = classify(run, result)
    run = replace(run, phase=advance(EXITS, run.phase, event))
    return Step(run, TABLE.act(run.phase, run))


def start(inputs: Inputs, state: IssueState) -> Step[Fix]:
    """The fix stage's first step."""
    return transition(Fix(inputs, state), Began())


def _launch(run: Fix) -> Effect:
    inputs, limits, commands = run.inputs, run.inputs.limits, run.inputs.commands
    named = (
        ("setup", commands.setup),
        ("test", commands.test),
        ("lint", commands.lint),
        ("typecheck", commands.typecheck),
    )
    text = prompt.render(
        prompt.FixData(
            issue=inputs.issue,
            issue_file=inputs.issue_file,
            handoff_file=inputs.handoff_file,
            base=inputs.base,
            soft=limits.context_soft,
            hard=limits.context_hard,
            practices=inputs.paths.practices,
            commands=tuple((n, c) for n, c in named if c),
            findings=run.state.open_blocking(),
            round=run.state.rounds.fix + 1,
            rounds=limits.max_fix_rounds,
            spec=run.state.spec,
            spec_file=inputs.spec_file if run.state.spec_file else None,
            continuation=run.continuation,
            earlier=(run.note,) if run.failures else (),
        )
    )
    return LaunchSession(
        kind="fix",
        role=SessionRole.WRITER,
        budget_role=Role.FIX,
        reply_model="fix",
        system_prompt=text.system,
        task=text.task,
        attempt=run.attempt,
        continuation=run.continuation,
    )


def fix_comment(run: Fix) -> str:
    """The fixer's own PR comment: what it addressed and what it disputed (FIX-8)."""
    assert run.reply is not None, "the fixer's comment needs its reply"
    parts = [f"### Fix round {run.state.rounds.fix}", run.reply.summary.strip()]
    if run.reply.addressed:
        parts.append("\n".join(f"- F{a.finding}: {a.how.strip()}" for a in run.reply.addressed))
    disputed = [f for f in run.state.findings if f.status == "disputed"]
    if disputed:
        parts.append("Disputed:\n" + "\n".join(f"- {f.id}: {f.dispute}" for f in disputed))
    if run.refused:
        parts.append("Disputes not accepted:\n" + "\n".join(f"- {r}" for r in run.refused))
    return "\n\n".join(p for p in parts if p)


def _stop(run: Fix, code: StopCode, reason: str) -> Stopped:
    return Stopped(code, reason, run.state, run.note)


TABLE: Table[Phase, Event, Fix] = Table(
    name="fix",
    start=Phase.START,
    exits=EXITS,
    effects={
        Phase.CHARGE: lambda run: ChargeBudget(Role.FIX),
        Phase.LAUNCH: _launch,
        Phase.PUSH: lambda run: PushBranch(run.reviewed_sha),
        # FIX-5: a disputed acceptance finding stops before anything is pushed.
        Phase.RESET: lambda run: ResetBranch(run.reviewed_sha),
        Phase.POST: lambda run: PostPrComment(
            f"fix-{run.state.rounds.fix}", "fix", fix_comment(run)
        ),
    },
    ends={
        Phase.TO_REVIEW: lambda run: SavedAt(Stage.REVIEW, run.state),
        Phase.NOTHING_OPEN: lambda run: SavedAt(Stage.CHECKS, run.state),
        Phase.OUT_OF_ROUNDS: lambda run: _stop(
            run,
            stop_code(run.state.open_blocking()),
            f"blocking findings are still open after {run.state.rounds.fix} fix rounds",
        ),
        Phase.ACCEPTANCE_DISPUTED: lambda run: _stop(
            run,
            StopCode.ACCEPTANCE,
            "the fixer disputes that the change must do what the acceptance check asks; "
            "only the operator can rule on what the issue asks",
        ),
        Phase.TOO_LARGE: lambda run: _stop(
            run,
            StopCode.TOO_LARGE,
            "the fixer handed off more than max_continuations times; split the issue",
        ),
        Phase.FAILED: lambda run: _stop(run, StopCode.ERROR, "the fixer failed twice"),
        Phase.OVER_BUDGET: lambda run: _stop(run, StopCode.BUDGET, run.note),
        Phase.DEFERRED: lambda run: Released(run.state, run.note),
    },
)
