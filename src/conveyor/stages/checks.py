"""The checks machine: verify, then the CI gate (a hold while pending), and the CI fixer."""

from __future__ import annotations

from dataclasses import replace

from conveyor.core.ci_gate import Verdict
from conveyor.core.config import Role
from conveyor.core.replies import CheckFixReply
from conveyor.core.session import SessionRole, SessionStatus
from conveyor.core.state import IssueState, Rereview, Stage
from conveyor.core.stops import StopCode
from conveyor.stages.checks_table import EXITS, Checks, Event, Phase
from conveyor.stages.effects import (
    Began,
    ChargeBudget,
    Charged,
    Checked,
    Done,
    Effect,
    LaunchSession,
    PostComment,
    PushBranch,
    Pushed,
    Refused,
    Result,
    SessionEnded,
)
from conveyor.stages.effects_merge import CiRead, GuardBranch, ReadCi, Verified, VerifyHead
from conveyor.stages.prompts import check_fix as prompt
from conveyor.stages.step import (
    End,
    IllegalMove,
    Inputs,
    Released,
    SavedAt,
    Step,
    Stopped,
    Table,
    advance,
)

# Each check fix is reviewed by these lenses before the checks run again (CHK-7).
FIX_LENSES = ("correctness", "scope")


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
    wait, head = run.state.ci_wait, run.inputs.head_sha
    if wait is not None and wait.sha == head and run.state.verified_sha == head:
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


def _handoff(run: Checks) -> tuple[Event, Checks]:
    if run.continuation >= run.inputs.limits.max_continuations:
        return Event.TOO_MANY_HANDOFFS, run
    counts = {**run.state.continuations, Stage.CHECKS: run.continuation + 1}
    return Event.HANDOFF, replace(run, state=run.state.model_copy(update={"continuations": counts}))


def _session(run: Checks, ended: SessionEnded) -> tuple[Event, Checks]:
    match ended:
        case SessionEnded(status=SessionStatus.RATE_LIMITED, error=error):
            return Event.DEFERRED, replace(run, note=error or "rate limited")
        case SessionEnded(status=SessionStatus.REPLIED, reply=CheckFixReply() as reply):
            if reply.status == "handoff":
                return _handoff(run)
            event = Event.DONE if reply.status == "done" else Event.CANNOT_FIX
            return event, replace(run, reply=reply, note=reply.cause)
        case SessionEnded(status=SessionStatus.HANDOFF | SessionStatus.CONTEXT_STOPPED):
            return _handoff(run)
        case SessionEnded(error=error):
            return Event.BROKEN, replace(run, note=error or "no valid reply")
    raise AssertionError  # pragma: no cover - the last case matches every session


def classify(run: Checks, result: Result) -> tuple[Event, Checks]:
    """The event a result is in the current phase, and the memory it leaves."""
    match result:
        case Began():
            return Event.BEGIN, run
        case Checked(ok=ok, findings=findings):
            return _guarded(run, ok, findings)
        case Verified(passed=True) as verified:
            state = run.state.model_copy(update={"verified_sha": verified.head_sha})
            return Event.PASSED, replace(run, verified=verified, state=state)
        case Verified() as verified:
            return _red(replace(run, verified=verified), verified.failures)
        case CiRead():
            return _ci(run, result)
        case Done():
            return Event.DONE, run
        case Charged(state=state):
            return Event.CHARGED, replace(run, state=state, attempt=run.attempt + 1)
        case Refused(reason=reason):
            return Event.REFUSED, replace(run, note=reason)
        case SessionEnded():
            return _session(run, result)
        case Pushed(head_sha=sha, new_paths=new):
            state = run.state.model_copy(update={"head_sha": sha})
            return (Event.CHANGED if new else Event.NOTHING), replace(run, state=state)
    msg = f"the checks stage cannot take {type(result).__name__} in {run.phase.value!r}"
    raise IllegalMove(msg)


def transition(run: Checks, result: Result) -> Step[Checks]:
    """The checks stage's one transition: look the event up, then act on the new phase."""
    event, run = classify(run, result)
    run = replace(run, phase=advance(EXITS, run.phase, event))
    return Step(run, TABLE.act(run.phase, run))


def start(inputs: Inputs, state: IssueState) -> Step[Checks]:
    """The checks stage's first step."""
    return transition(Checks(inputs, state), Began())


def _launch(run: Checks) -> Effect:
    inputs, limits, commands = run.inputs, run.inputs.limits, run.inputs.commands
    named = (("setup", commands.setup), ("test", commands.test), ("lint", commands.lint))
    text = prompt.render(
        prompt.CheckFixData(
            issue=inputs.issue,
            issue_file=inputs.issue_file,
            handoff_file=inputs.handoff_file,
            base=inputs.base,
            soft=limits.context_soft,
            hard=limits.context_hard,
            practices=inputs.paths.practices,
            commands=tuple((n, c) for n, c in (*named, ("typecheck", commands.typecheck)) if c),
            problems=run.problems,
            continuation=run.continuation,
        )
    )
    return LaunchSession(
        kind="check_fix",
        role=SessionRole.WRITER,
        budget_role=Role.CHECK_FIX,
        reply_model="check_fix",
        system_prompt=text.system,
        task=text.task,
        attempt=run.attempt,
        continuation=run.continuation,
    )


def report(run: Checks) -> str:
    """The signed checks comment: verify's summary and what the CI gate said (CHK-16)."""
    verify = run.verified.summary if run.verified else f"verify of {run.head[:12]}: passed earlier"
    gate = run.ci.gate if run.ci else None
    ci = "CI: " + (gate.note if gate else "not read")
    if gate is not None and gate.verdict is Verdict.UNGATED:
        ci = "CI: ungated (no check is reported on this repository; nothing was gated)"
    return f"### Checks\n\n```\n{verify}\n```\n\n{ci}\n"


def _passed(run: Checks) -> End:
    state = run.state.model_copy(
        update={"head_sha": run.head, "verified_sha": run.head, "ci_wait": None}
    )
    return SavedAt(Stage.ACCEPT, state)


def _hold(run: Checks) -> End:
    assert run.ci is not None, "a CI hold needs the gate's wait"
    return SavedAt(Stage.CHECKS, run.state.model_copy(update={"ci_wait": run.ci.gate.wait}))


def _to_review(run: Checks) -> End:
    rereview = Rereview(base_sha=run.head, lenses=FIX_LENSES)
    state = run.state.model_copy(update={"rereview": rereview, "ci_wait": None})
    return SavedAt(Stage.REVIEW, state)


TABLE: Table[Phase, Event, Checks] = Table(
    name="checks",
    start=Phase.START,
    exits=EXITS,
    effects={
        Phase.GUARD: lambda run: GuardBranch(run.state.head_sha),
        Phase.VERIFY: lambda run: VerifyHead(),
        Phase.READ_CI: lambda run: ReadCi(run.head, run.state.ci_wait),
        Phase.REPORT: lambda run: PostComment("checks", "checks", report(run), per_issue=True),
        Phase.CHARGE: lambda run: ChargeBudget(Role.CHECK_FIX),
        Phase.LAUNCH: _launch,
        Phase.PUSH: lambda run: PushBranch(run.head),
    },
    ends={
        Phase.TO_ACCEPT: _passed,
        Phase.HOLD: _hold,
        Phase.TO_REVIEW: _to_review,
        Phase.BRANCH_CHANGED: lambda run: Stopped(
            StopCode.BRANCH_CHANGED,
            "the PR's head on the forge is not the head the pipeline recorded",
            run.state,
            run.note,
        ),
        Phase.NO_CI: lambda run: Stopped(
            StopCode.NO_CI, "no CI result within ci_timeout_minutes", run.state, run.note
        ),
        Phase.UNRELATED: lambda run: Stopped(
            StopCode.CHECKS_UNRELATED,
            "a failing check fails on the base's head too",
            run.state,
            ", ".join(run.ci.unrelated if run.ci else ()),
        ),
        Phase.CHECK_FIXES: lambda run: Stopped(
            StopCode.CHECK_FIXES,
            "the checks still fail after max_check_fixes fixes",
            run.state,
            "\n".join(f"- {p}" for p in run.problems) + (f"\n\n{run.note}" if run.note else ""),
        ),
        Phase.TOO_LARGE: lambda run: Stopped(
            StopCode.TOO_LARGE,
            "the check fixer handed off more than max_continuations times",
            run.state,
        ),
        Phase.FAILED: lambda run: Stopped(
            StopCode.ERROR, "the check fixer's session failed", run.state, run.note
        ),
        Phase.OVER_BUDGET: lambda run: Stopped(StopCode.BUDGET, run.note, run.state),
        Phase.DEFERRED: lambda run: Released(run.state, run.note),
    },
)
