"""Which op carries out each effect: one table keyed by the effect's type (one hop to the world).

Every entry hands the op only the parts of the job it needs (`conveyor.ops.forge.job_parts`).
`Dispatch.on` is type-checked per entry (the op takes exactly that effect); that every
effect has an entry is pinned by `tests/unit/job/test_dispatch.py`. The session launch
is the job's own (`job/effects_session.py`): it runs the agent under the job's hub,
job file and signals, and posts the handoff it kept.
"""

from __future__ import annotations

import sys
import weakref
from collections.abc import Callable
from typing import TypeVar

from conveyor.core.state import IssueState
from conveyor.job.alongside import Alongside
from conveyor.job.context import JobContext
from conveyor.job.effects_session import ScenarioMissing, run_launch
from conveyor.job.fresh_comments import with_fresh_comments
from conveyor.job.hub import JobHub
from conveyor.job.interrupted import with_interrupted
from conveyor.job.roles import JobRole
from conveyor.ops.forge import branch_effects as branch
from conveyor.ops.forge import checks_effects as checks
from conveyor.ops.forge import merge_effects as merge
from conveyor.ops.forge import wiki_effects as wiki
from conveyor.ops.forge.forge_effects import (
    run_charge,
    run_post,
    run_post_on_pr,
    run_prepare,
    save_spec_file,
)
from conveyor.ops.forge.job_parts import BranchHeld, PushRefused
from conveyor.ops.local.job_push import take_agent_heads
from conveyor.stages import effects as fx
from conveyor.stages import effects_merge as mx
from conveyor.stages import effects_review as rx

E = TypeVar("E", bound=fx.Effect)
Outcome = fx.Result | PushRefused | BranchHeld | ScenarioMissing
Op = Callable[[JobContext, IssueState, fx.Effect], Outcome]


class Dispatch:
    """The table from effect type to the op that carries it out."""

    def __init__(self) -> None:
        self._ops: dict[type[object], Op] = {}

    def on(self, kind: type[E], op: Callable[[JobContext, IssueState, E], Outcome]) -> None:
        """Carry out effects of type `kind` with `op`."""

        def run(ctx: JobContext, state: IssueState, effect: fx.Effect) -> Outcome:
            if not isinstance(effect, kind):
                msg = f"{type(effect).__name__} is not a {kind.__name__}"
                raise TypeError(msg)
            return op(ctx, state, effect)

        self._ops[kind] = run

    def kinds(self) -> frozenset[type[object]]:
        """Every effect type the table carries out."""
        return frozenset(self._ops)

    def perform(self, ctx: JobContext, state: IssueState, effect: fx.Effect) -> Outcome:
        """Carry out one effect with its op."""
        op = self._ops.get(type(effect))
        if op is None:
            msg = f"no op carries out {type(effect).__name__}"
            raise TypeError(msg)
        return op(ctx, state, effect)


Launched = tuple[fx.SessionEnded | ScenarioMissing, bool]
# Each running job's sessions started ahead (`job/alongside.py`), by its hub.
_AHEAD: weakref.WeakKeyDictionary[JobHub, Alongside[Launched]] = weakref.WeakKeyDictionary()


def launch(
    ctx: JobContext, state: IssueState, effect: fx.LaunchSession
) -> fx.SessionEnded | ScenarioMissing:
    """Run the session with the comments posted since (with the sessions it brings
    alongside, each on its own thread), or take how a session started ahead for it ended;
    post the handoff it kept."""
    ahead = _AHEAD.setdefault(ctx.live.hub, Alongside())
    taken = ahead.take(effect)
    if taken is None:
        told = with_interrupted(ctx, state, with_fresh_comments(ctx, state, effect))
        ahead.start(
            tuple(zip(effect.alongside, told.alongside, strict=True)),
            lambda launched, handle: run_launch(ctx, launched, handle),
        )
        taken = run_launch(ctx, told)
    if ctx.live.role is JobRole.WRITER:
        _take_agent_heads(ctx)
    ended, kept = taken
    if kept:
        handoff = (ctx.where.run_dir / "handoff.md").read_text(encoding="utf-8")
        note = f"<details><summary>Handoff</summary>\n\n{handoff}\n\n</details>"
        run_post(ctx.what, ctx.who, fx.PostComment("handoff", effect.kind, note, True))
    return ended


def _take_agent_heads(ctx: JobContext) -> None:
    """What a writer's session committed comes into the keeps, which Conveyor reads."""
    wiki = ctx.where.wiki.repo if ctx.where.wiki is not None else None
    failed = take_agent_heads(ctx.where.git, wiki)
    if failed:
        say = f"conveyor job: the session's commits were not taken: {failed}"
        print(say, file=sys.stderr)  # noqa: T201 - the job's stderr is its log


def post(ctx: JobContext, _state: IssueState, effect: fx.PostComment) -> fx.Done:
    """Post a signed comment on the issue."""
    run_post(ctx.what, ctx.who, effect)
    return fx.Done()


def save_spec(ctx: JobContext, _state: IssueState, effect: fx.SaveSpecFile) -> fx.Done:
    """Keep the spec in the run folder."""
    save_spec_file(ctx.where.run_dir, effect)
    return fx.Done()


def _front(table: Dispatch) -> None:
    table.on(fx.ChargeBudget, lambda c, s, e: run_charge(c.what, c.who.ops, s, e))
    table.on(fx.LaunchSession, launch)
    table.on(fx.PostComment, post)
    table.on(fx.SaveSpecFile, save_spec)
    table.on(
        fx.CheckSpecCommits,
        lambda c, s, e: branch.run_spec_check(c.what, c.where, c.who, c.live.pulse, e),
    )
    table.on(fx.RunTests, lambda c, s, e: branch.run_tests(c.what, c.where, c.who, c.live.pulse))
    table.on(
        fx.ResetBranch,
        lambda c, s, e: branch.reset_branch(c.what, c.where, c.who, c.live.pulse, s, effect=e),
    )
    table.on(
        fx.OpenDraftPr, lambda c, s, e: branch.open_draft(c.what, c.where, c.who, c.live.pulse, s)
    )
    table.on(fx.CheckSpecTests, lambda c, s, e: branch.check_spec_tests(c.what, c.where, e))
    table.on(
        fx.PushBranch,
        lambda c, s, e: branch.push_branch(c.what, c.where, c.who, c.live.pulse, s, effect=e),
    )
    table.on(
        fx.SettlePr,
        lambda c, s, e: wiki.run_settle(c.what, c.where, c.who, c.live.pulse, s, effect=e),
    )
    table.on(rx.PrepareReview, lambda c, s, e: run_prepare(c.what, c.where, s, e))
    table.on(rx.PostPrComment, lambda c, s, e: run_post_on_pr(c.what, c.who, s, e))


def _back(table: Dispatch) -> None:
    table.on(mx.GuardBranch, lambda c, s, e: checks.run_guard(c.what, c.where, c.who, s, e))
    table.on(
        mx.VerifyHead,
        lambda c, s, e: checks.run_verify(c.what, c.where, c.who, c.live.pulse, s, effect=e),
    )
    table.on(
        mx.ReadCi,
        lambda c, s, e: checks.run_read_ci(c.what, c.where, c.who, c.live.pulse, s, effect=e),
    )
    table.on(
        mx.SyncBase,
        lambda c, s, e: merge.run_sync_base(c.what, c.where, c.who, c.live.pulse, e.stacked_on),
    )
    table.on(
        mx.FinishSync,
        lambda c, s, e: merge.run_finish_sync(c.what, c.where, c.who, c.live.pulse, s, effect=e),
    )
    table.on(mx.RestoreBranch, lambda c, s, e: merge.run_restore(c.what, c.where))
    table.on(mx.ReadQueue, lambda c, s, e: merge.run_read_queue(c.what, c.who, c.live.pulse, s))
    table.on(mx.CheckBehind, lambda c, s, e: merge.run_check_behind(c.what, c.where, c.who, s, e))
    table.on(
        mx.RebaseHere,
        lambda c, s, e: merge.run_rebase_here(c.what, c.where, c.who, c.live.pulse, s, effect=e),
    )
    table.on(mx.ReadStack, lambda c, s, e: merge.run_read_stack(c.who, e))
    table.on(mx.MergePr, lambda c, s, e: merge.run_merge(c.what, c.who, s, e))
    table.on(mx.HandOver, lambda c, s, e: merge.run_hand_over(c.what, c.who, s, e))
    table.on(
        mx.CloseOut,
        lambda c, s, e: merge.run_close_out(c.what, c.where, c.who, c.live.pulse, s, effect=e),
    )
    table.on(mx.CheckWiki, lambda c, s, e: wiki.run_check_wiki(c.where.wiki, c.live.pulse))
    table.on(mx.PublishWiki, lambda c, s, e: wiki.run_publish_wiki(c.what, c.where, c.who))
    table.on(
        mx.FinishWiki,
        lambda c, s, e: wiki.run_finish_wiki(c.what, c.where, c.who, c.live.pulse, s),
    )


def build_dispatch() -> Dispatch:
    """The table of every effect the stage machines ask for."""
    table = Dispatch()
    _front(table)
    _back(table)
    return table


DISPATCH = build_dispatch()


def end_alongside(ctx: JobContext) -> list[tuple[fx.LaunchSession, Launched]]:
    """Abort the job's sessions started ahead that no launch asked for, wait for them, and
    answer how each ended (none after the first call)."""
    ahead = _AHEAD.pop(ctx.live.hub, None)
    return [] if ahead is None else ahead.close()
