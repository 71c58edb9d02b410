"""The implement machine: a writer makes the spec's tests pass; open-pr readies the PR (IMPL-*)."""

from __future__ import annotations

from dataclasses import replace

from conveyor.core.config import Role
from conveyor.core.replies import ImplementReply
from conveyor.core.session import SessionRole, SessionStatus
from conveyor.core.state import IssueState, Stage
from conveyor.core.stops import StopCode
from conveyor.stages.effects import (
    Began,
    ChargeBudget,
    Charged,
    Checked,
    CheckSpecTests,
    Done,
    Effect,
    FinishPr,
    LaunchSession,
    PostComment,
    PrOpened,
    PushBranch,
    Pushed,
    Refused,
    Result,
    SessionEnded,
)
from conveyor.stages.implement_table import EXITS, Event, Implement, Phase
from conveyor.stages.prompts import implement as prompt
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
    with_usage,
)

WRITER_ATTEMPTS = 2


def _failed(run: Implement, why: str, findings: tuple[str, ...] = ()) -> tuple[Event, Implement]:
    failures = run.failures + 1
    run = replace(run, failures=failures, findings=(why, *findings), note=why)
    return (Event.FAILED if failures < WRITER_ATTEMPTS else Event.EXHAUSTED), run


def _handoff(run: Implement) -> tuple[Event, Implement]:
    if run.continuation >= run.inputs.limits.max_continuations:
        return Event.TOO_MANY_HANDOFFS, run
    counts = {**run.state.continuations, Stage.IMPLEMENT: run.continuation + 1}
    state = run.state.model_copy(update={"continuations": counts})
    return Event.HANDOFF, replace(run, state=state, findings=())


def _session(run: Implement, ended: SessionEnded) -> tuple[Event, Implement]:
    match ended:
        case SessionEnded(status=SessionStatus.RATE_LIMITED, error=error):
            return Event.DEFERRED, replace(run, note=error or "rate limited")
        case SessionEnded(status=SessionStatus.HANDOFF | SessionStatus.CONTEXT_STOPPED):
            return _handoff(run)
        case SessionEnded(status=SessionStatus.REPLIED, reply=ImplementReply() as reply):
            if reply.status == "handoff":
                return _handoff(run)
            if reply.status == "blocked":
                return Event.BLOCKED, replace(run, reply=reply)
            return Event.DONE, replace(run, reply=reply)
        case SessionEnded(error=error, findings=findings):
            why = f"the implementer's session failed: {error or 'no valid reply'}"
            return _failed(run, why, findings)
    raise AssertionError  # pragma: no cover - every SessionEnded matches the last case


def classify(run: Implement, result: Result) -> tuple[Event, Implement]:
    """The event a result is in the current phase, and the memory it leaves."""
    match result:
        case Began():
            return Event.BEGIN, run
        case Charged(state=state):
            return Event.CHARGED, replace(run, state=state, attempt=run.attempt + 1)
        case Refused(reason=reason):
            return Event.REFUSED, replace(run, note=reason)
        case SessionEnded(used=used):
            return _session(replace(run, state=with_usage(run.state, used)), result)
        case Checked(ok=True):
            return Event.PASSED, run
        case Checked(findings=findings):
            event, run = _failed(run, "the spec writer's tests were changed", findings)
            still = Event.TESTS_STILL_CHANGED
            return (Event.TESTS_CHANGED if event is Event.FAILED else still), run
        case Pushed(head_sha=sha, changed_paths=changed, new_paths=new):
            state = run.state.model_copy(update={"head_sha": sha, "changed_paths": changed})
            return (Event.CHANGED if new else Event.NOTHING), replace(run, state=state)
        case PrOpened(number=number):
            return Event.DONE, replace(run, state=run.state.model_copy(update={"pr": number}))
        case Done():
            return Event.DONE, run
    msg = f"the implement stage cannot take {type(result).__name__} in {run.phase.value!r}"
    raise IllegalMove(msg)


def transition(run: Implement, result: Result) -> Step[Implement]:
    """The implement stage's one transition: look the event up, then act on the new phase."""
    event, run = classify(run, result)
    run = replace(run, phase=advance(EXITS, run.phase, event))
    return Step(run, TABLE.act(run.phase, run))


def start(inputs: Inputs, state: IssueState) -> Step[Implement]:
    """The implement stage's first step."""
    return transition(Implement(inputs, state), Began())


def _reply(run: Implement) -> ImplementReply:
    assert run.reply is not None, f"phase {run.phase.value!r} needs the implementer's reply"
    return run.reply


def _launch(run: Implement) -> Effect:
    inputs, limits = run.inputs, run.inputs.limits
    commands = inputs.commands
    named: tuple[tuple[str, str | None], ...] = (
        ("setup", commands.setup),
        ("test", commands.test),
        ("lint", commands.lint),
        ("typecheck", commands.typecheck),
    )
    text = prompt.render(
        prompt.ImplementData(
            issue=inputs.issue,
            issue_file=inputs.issue_file,
            handoff_file=inputs.handoff_file,
            base=inputs.base,
            soft=limits.context_soft,
            hard=limits.context_hard,
            practices=inputs.paths.practices,
            commands=tuple((n, c) for n, c in named if c),
            spec=run.state.spec,
            spec_file=inputs.spec_file if run.state.spec_file else None,
            continuation=run.continuation,
            findings=run.findings,
        )
    )
    return LaunchSession(
        kind="implement",
        role=SessionRole.WRITER,
        budget_role=Role.IMPLEMENT,
        reply_model="implement",
        system_prompt=text.system,
        task=text.task,
        attempt=run.attempt,
        continuation=run.continuation,
    )


def pr_text(run: Implement) -> FinishPr:
    """The PR's title and body: the issue's title with `(#N)`, `Closes #N`, then the summary."""
    n = run.inputs.issue
    summary = _reply(run).summary.strip()
    return FinishPr(f"{run.inputs.title.strip()} (#{n})", f"Closes #{n}\n\n{summary}\n")


def _blocked_text(run: Implement) -> str:
    why = (_reply(run).blocked_reason or _reply(run).summary).strip()
    return f"### Implementation blocked\n\nBack to the spec writer: {why}"


def _back_to_spec(run: Implement) -> End:
    why = (_reply(run).blocked_reason or _reply(run).summary).strip()
    plan = f"{run.state.plan or ''}\n\nThe implementer was blocked by the spec: {why}".strip()
    return SavedAt(Stage.SPEC, run.state.model_copy(update={"plan": plan}))


def _stop(code: StopCode, reason: str, run: Implement, details: str = "") -> End:
    return Stopped(code, reason, run.state, details)


TABLE: Table[Phase, Event, Implement] = Table(
    name="implement",
    start=Phase.START,
    exits=EXITS,
    effects={
        Phase.CHARGE: lambda run: ChargeBudget(Role.IMPLEMENT),
        Phase.LAUNCH: _launch,
        Phase.CHECK_TESTS: lambda run: CheckSpecTests(run.start_sha, run.spec_sha),
        Phase.PUSH: lambda run: PushBranch(run.spec_sha),
        Phase.FINISH_PR: pr_text,
        Phase.POST_BLOCKED: lambda run: PostComment("blocked", "implement", _blocked_text(run)),
    },
    ends={
        Phase.TO_REVIEW: lambda run: SavedAt(
            Stage.REVIEW, run.state.model_copy(update={"implemented": True})
        ),
        Phase.BACK_TO_SPEC: _back_to_spec,
        Phase.NOT_DOABLE: lambda run: _stop(
            StopCode.NOT_DOABLE, "the implementer changed nothing", run, _reply(run).summary
        ),
        Phase.TOO_LARGE: lambda run: _stop(
            StopCode.TOO_LARGE,
            "the implementer handed off more than max_continuations times; split the issue",
            run,
        ),
        Phase.FAILED: lambda run: _stop(
            StopCode.ERROR, "the implementer failed twice", run, run.note
        ),
        Phase.TESTS_CHANGED: lambda run: _stop(
            StopCode.ERROR,
            "the implementer changed the spec writer's tests",
            run,
            "\n".join(f"- {f}" for f in run.findings),
        ),
        Phase.OVER_BUDGET: lambda run: _stop(StopCode.BUDGET, run.note, run),
        Phase.DEFERRED: lambda run: Released(run.state, run.note),
    },
)
