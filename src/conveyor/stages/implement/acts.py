"""The implement stage's acts: the effect each phase asks for, each end, and the table."""

from __future__ import annotations

from conveyor.core.config import Role
from conveyor.core.flows import PrAction, pr_open
from conveyor.core.replies import ImplementReply
from conveyor.core.state import Stage
from conveyor.core.stops import StopCode
from conveyor.stages import launch
from conveyor.stages.effects import (
    ChargeBudget,
    CheckSpecTests,
    Effect,
    PostComment,
    PushBranch,
    SettlePr,
)
from conveyor.stages.implement.table import EXITS, Event, Implement, Phase
from conveyor.stages.prompts import implement as prompt
from conveyor.stages.step import End, SavedAt, Stopped, Table, deferred, over_budget


def _reply(run: Implement) -> ImplementReply:
    assert run.reply is not None, f"phase {run.phase.value!r} needs the implementer's reply"
    return run.reply


def _launch(run: Implement) -> Effect:
    inputs = run.inputs
    text = prompt.render(
        prompt.ImplementData(
            **launch.frame(inputs),
            practices=inputs.instructions,
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
