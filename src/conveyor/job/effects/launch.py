"""The session launch's row: run the stage's session (and those it brings alongside) under the
job, take what a writer's session committed, post the handoff it kept.

How one session runs is `job/effects/session.py`; the sessions started ahead are the job's
own (`JobLive.alongside`), so two jobs in one process never share them.
"""

from __future__ import annotations

import sys

from conveyor.core.state import IssueState
from conveyor.job.context import JobContext, Launched
from conveyor.job.effects.parts import ScenarioMissing
from conveyor.job.effects.push import take_agent_heads
from conveyor.job.effects.session import run_launch
from conveyor.job.effects.table import Dispatch
from conveyor.job.effects.writes import run_post
from conveyor.job.fresh_comments import with_fresh_comments
from conveyor.job.interrupted import with_interrupted
from conveyor.job.roles import JobRole
from conveyor.stages import effects as fx


def launch(
    ctx: JobContext, state: IssueState, effect: fx.LaunchSession
) -> fx.SessionEnded | ScenarioMissing:
    """Run the session with the comments posted since (with the sessions it brings
    alongside, each on its own thread), or take how a session started ahead for it ended;
    post the handoff it kept."""
    ahead = ctx.live.alongside
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


def end_alongside(ctx: JobContext) -> list[tuple[fx.LaunchSession, Launched]]:
    """Abort the job's sessions started ahead that no launch asked for, wait for them, and
    answer how each ended (none after the first call)."""
    return ctx.live.alongside.close()


def rows(table: Dispatch) -> None:
    """The session launch's row of the dispatch table."""
    table.on(fx.LaunchSession, launch)
