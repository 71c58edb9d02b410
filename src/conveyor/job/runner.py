"""The stage runner: drive a stage machine, carrying out each effect it asks for, to its end.

`run_stage(ctx, state)` is what `conveyor job` calls once the issue is claimed and the
checkout is ready. The stage's machine and what it needs first (spec.md restored, its
start measured) come from its definition in `stages.registry`. Each effect goes in one hop
to the op that carries it out (the table in `job/dispatch.py`); each result is fed back to
the machine's pure `transition`, a refused push ends the stage with the `push-rejected`
stop (a session the scripted agent's scenario cannot play with `error`), and the end it
reaches is carried out with the intake ops (save-state, release, stop, ask, split).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol, TypeVar

from conveyor.core.budget import give_back_ahead
from conveyor.core.replies import SpecReply
from conveyor.core.state import IssueState, Stage
from conveyor.core.stops import StopCode
from conveyor.git import merge_base, rev_parse
from conveyor.job.context import JobContext, StageEnd
from conveyor.job.dispatch import DISPATCH
from conveyor.job.earlier_work import branch_commits, handoff_kept
from conveyor.job.effects.branch import scope_check
from conveyor.job.effects.launch import end_alongside
from conveyor.job.effects.parts import BranchHeld, PushRefused, ScenarioMissing
from conveyor.job.effects.session import quick_checks
from conveyor.job.effects.writes import SPEC_MD
from conveyor.job.feedback import take_feedback_first
from conveyor.job.instructions import take_instructions
from conveyor.job.runner_ends import carry_out, restore_spec_md
from conveyor.ops.forge.issue_md import read_taken
from conveyor.ops.forge.stack import measure_from
from conveyor.stages.effects import Effect, Result
from conveyor.stages.registry import definition
from conveyor.stages.step import End, Inputs, Step, Stopped, with_unasked_usage


class Remembers(Protocol):
    """A stage machine's memory: it holds the issue's state as the stage has made it."""

    @property
    def state(self) -> IssueState:
        """The issue's state so far."""
        ...


M = TypeVar("M", bound=Remembers)


class Drivable(Protocol[M]):
    """What the runner drives: a stage machine's start and transition (`stages.machine`)."""

    def start(self, inputs: Inputs, state: IssueState) -> Step[M]:
        """The first step."""
        ...

    def transition(self, run: M, result: Result) -> Step[M]:
        """The step after `result`."""
        ...


def build_inputs(ctx: JobContext, state: IssueState) -> Inputs:
    """The machine's inputs, gathered from the forge, the checkout and the run folder."""
    taken = read_taken(ctx.where.issue_file.parent)
    triage = ctx.what.stage is Stage.TRIAGE
    intake = ctx.what.config.intake
    oversize = None
    if intake.max_size is not None and ctx.what.stage is Stage.TRIAGE:
        # The job read the issue when it claimed it: this read is answered from that copy.
        oversize = intake.oversize(ctx.who.forge.get_issue(ctx.what.issue).labels)
    return Inputs(
        issue=ctx.what.issue,
        title=taken.title if taken is not None else ctx.who.forge.get_issue(ctx.what.issue).title,
        base=ctx.what.base,
        limits=ctx.what.config.limits,
        commands=ctx.what.config.commands,
        paths=ctx.what.config.paths,
        head_sha=rev_parse(ctx.where.git, "HEAD"),
        issue_file=str(ctx.where.issue_file),
        spec_file=str(ctx.where.run_dir / SPEC_MD),
        handoff_file=str(ctx.where.run_dir / "handoff.md"),
        withheld=taken.withheld if taken is not None else 0,
        wiki_dir=ctx.where.wiki.dir if ctx.where.wiki else None,
        wiki_head=ctx.where.wiki.start_sha if ctx.where.wiki else None,
        oversize=oversize,
        hand_over=ctx.what.config.handover.by_person,
        review=ctx.what.config.review,
        # Only triage reads them (TRI-14): other stages pay no git read for them.
        branch_commits=branch_commits(ctx, state) if triage else (),
        handoff_kept=triage and handoff_kept(ctx.where.run_dir),
        instructions=take_instructions(ctx),
    )


def perform(
    ctx: JobContext, state: IssueState, effect: Effect
) -> Result | PushRefused | BranchHeld | ScenarioMissing:
    """Carry out one effect with the op that does it and return its result (see `job/dispatch.py`).

    A push the forge refused is `PushRefused`, a session the scripted agent's scenario cannot
    play `ScenarioMissing`; adapter failures raise.
    """
    return DISPATCH.perform(ctx, state, effect)


def with_unasked(ctx: JobContext, end: End) -> End:
    """`end` once the sessions started ahead that the stage never asked for have ended, with
    what they spent (`with_unasked_usage`)."""
    state = give_back_ahead(end.state)  # a stop before the machine's end may hold some
    budgets, limits = ctx.what.config.budgets, ctx.what.config.limits
    for launch, (ended, _) in end_alongside(ctx):
        if not isinstance(ended, ScenarioMissing):
            state = with_unasked_usage(state, launch.budget_role, budgets, limits, ended)
    return end if state is end.state else replace(end, state=state)


def drive(ctx: JobContext, machine: Drivable[M], state: IssueState) -> StageEnd:
    """Run `machine` from its start to its end."""
    step = machine.start(build_inputs(ctx, state), state)
    while True:
        action = step.action
        current = step.memory.state
        if not isinstance(action, Effect):
            return carry_out(ctx, with_unasked(ctx, action))
        result = perform(ctx, current, action)
        if isinstance(result, PushRefused):
            reason = f"the forge refused the push: {result.reason}"
            return carry_out(
                ctx, with_unasked(ctx, Stopped(StopCode.PUSH_REJECTED, reason, current))
            )
        if isinstance(result, BranchHeld):  # a person's work on the branch (SPEC-128)
            return carry_out(
                ctx, with_unasked(ctx, Stopped(StopCode.BRANCH_CHANGED, result.reason, current))
            )
        if isinstance(result, ScenarioMissing):
            # The same session would miss again however often it ran: stop now, not after
            # the stage's attempts, and name the file to fix.
            return carry_out(
                ctx, with_unasked(ctx, Stopped(StopCode.ERROR, result.reason, current))
            )
        if ctx.interrupted():
            return StageEnd("interrupted", current, "interrupted during the stage")
        step = machine.transition(step.memory, result)


def spec_start(ctx: JobContext, state: IssueState) -> IssueState:
    """Where a spec begins: where the checkout's branch leaves the base (as fetched now) or,
    when stacked, its prerequisite's head.

    A spec job that died after committing (its commits rescued and continued from) or
    after pushing the branch starts again on those commits, and its commit check must
    still see them; one that died earlier had saved where it began, on a base that may
    have moved since (its files are not the spec writer's). Either way the spec's own
    commits are exactly those past the fork point with the current base.
    """
    head = rev_parse(ctx.where.git, "HEAD")
    # A stacked issue's own commits start after its prerequisite's head, not the base's.
    fork = (
        merge_base(ctx.where.git, head, measure_from(ctx.where.git, ctx.what.base, state)) or head
    )
    if state.start_sha == fork:
        return state
    return state.model_copy(update={"start_sha": fork})


def run_stage(ctx: JobContext, state: IssueState) -> StageEnd:
    """Run the job's stage on the claimed `state` and return how it ended."""
    stage = definition(ctx.what.stage)
    begun = take_feedback_first(ctx, state)
    if isinstance(begun, StageEnd):
        return begun
    state = spec_start(ctx, begun) if stage.measures_start else begun
    start = state.start_sha or rev_parse(ctx.where.git, "HEAD")

    def scope(reply: SpecReply) -> list[str]:
        return scope_check(ctx.what, ctx.where, ctx.who, ctx.live.pulse, start, reply=reply)

    in_session = scope if stage.measures_start else None
    ctx.live.hub.set_check_reply(quick_checks(ctx.what.stage, state, in_session))
    try:
        if stage.restores_spec:
            restore_spec_md(ctx, state)
        return drive(ctx, stage.machine, state)
    finally:
        end_alongside(ctx)
        ctx.live.hub.set_check_reply(None)
