"""The implement machine: a writer makes the spec's tests pass; open-pr readies the PR (IMPL-*)."""

from __future__ import annotations

from dataclasses import replace

from conveyor.core.config import Role
from conveyor.core.flows import PrAction, flows_of, pr_flow_action, pr_open
from conveyor.core.replies import ImplementReply
from conveyor.core.state import Stage
from conveyor.core.stops import StopCode
from conveyor.stages import launch
from conveyor.stages.effects import (
    Began,
    ChargeBudget,
    Charged,
    Checked,
    CheckSpecTests,
    Done,
    Effect,
    PostComment,
    PrSettled,
    PushBranch,
    Pushed,
    Refused,
    Result,
    SessionEnded,
    SettlePr,
)
from conveyor.stages.implement_table import EXITS, Event, Implement, Phase
from conveyor.stages.machine import Machine, cannot_take, charge
from conveyor.stages.prompts import implement as prompt
from conveyor.stages.step import End, SavedAt, Stopped, Table, deferred, over_budget, with_usage
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
        case PrSettled(number=number, open=is_open):
            update = {"pr": number, "pr_closed": number is not None and not is_open}
            return Event.DONE, replace(run, state=run.state.model_copy(update=update))
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


def _reply(run: Implement) -> ImplementReply:
    assert run.reply is not None, f"phase {run.phase.value!r} needs the implementer's reply"
    return run.reply


def _launch(run: Implement) -> Effect:
    inputs = run.inputs
    text = prompt.render(
        prompt.ImplementData(
            **launch.frame(inputs),
            practices=inputs.paths.practices,
            commands=launch.commands(inputs.commands),
            spec=run.state.spec,
            spec_file=inputs.spec_file if run.state.spec_file else None,
            continuation=run.continuation,
            findings=run.findings,
            wiki_dir=run.inputs.wiki_dir,
        )
    )
    return launch.writer("implement", Role.IMPLEMENT, text, run)


def pr_text(run: Implement) -> SettlePr:
    """The PR readied (reopened or opened when needed) with its title and body: the issue's
    title with `(#N)`, `Closes #N`, then the summary."""
    n = run.inputs.issue
    summary = _reply(run).summary.strip()
    action: PrAction = "go" if pr_open(run.state) else "reopen"
    title, body = f"{run.inputs.title.strip()} (#{n})", f"Closes #{n}\n\n{summary}\n"
    return SettlePr(action, title, body)


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
        Phase.CLOSE_PR: lambda run: SettlePr("close"),
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
        Phase.OVER_BUDGET: over_budget,
        Phase.DEFERRED: deferred,
    },
)


MACHINE = Machine(TABLE, classify, Implement)
transition = MACHINE.transition
start = MACHINE.start
