"""Carrying out a stage's end: save the state, then release, stop, ask or split."""

from __future__ import annotations

import sys
from typing import assert_never

from conveyor.core.redact import redact
from conveyor.core.state import IssueState, Stage
from conveyor.git import rev_parse
from conveyor.job.context import JobContext, StageEnd
from conveyor.job.effects.push import only_local_note
from conveyor.job.effects.writes import SPEC_MD, signature
from conveyor.job.finish import push_local_commits
from conveyor.job.notify import Happened, run_notify
from conveyor.ops.forge.ask import ask
from conveyor.ops.forge.close_out import mark_merged
from conveyor.ops.forge.context import fetch_comments
from conveyor.ops.forge.handover import mark_approved
from conveyor.ops.forge.release import release, set_aside
from conveyor.ops.forge.split import Part, split
from conveyor.ops.forge.state_store import save_state
from conveyor.ops.forge.stop import stop
from conveyor.stages.registry import has_job
from conveyor.stages.spec.acts import SPEC_HEADING
from conveyor.stages.step import Asked, End, Released, SavedAt, Split, Stopped

SPEC_MARK = "<!-- conveyor:comment role=spec kind=spec run="


def _save(ctx: JobContext, state: IssueState) -> None:
    save_state(ctx.who.ops, ctx.what.issue, state)


def carry_out(ctx: JobContext, end: End) -> StageEnd:
    """Save the end's state and run its op; the result is what the job reports."""
    match end:
        case SavedAt(stage=stage, state=state):
            at_stage = state.model_copy(update={"stage": stage})
            saved = release(
                ctx.who.ops, ctx.what.issue, lane=ctx.live.lane, now=ctx.live.now(), state=at_stage
            )
            if stage is Stage.APPROVED:
                mark_approved(ctx.who.ops, ctx.what.issue, state.pr, now=ctx.live.now())
                _notify(ctx, Happened("approved", ctx.what.issue, pr=state.pr))
                return StageEnd("saved", saved, "approved: a person merges the PR")
            if not has_job(stage):
                mark_merged(ctx.who.ops, ctx.what.issue)
                return StageEnd("merged", saved, "merged")
            return StageEnd("saved", saved, f"saved at {stage.value}")
        case Stopped(code=code, reason=reason, state=state, details=details):
            _save(ctx, state)
            error = push_local_commits(ctx)
            if error is not None:
                note = only_local_note(rev_parse(ctx.where.git, "HEAD"), ctx.what.branch, error)
                details = f"{details}\n\n{note}".strip()
            reason = redact(reason, ctx.who.token_secrets)
            details = redact(details, ctx.who.token_secrets)
            stop(
                ctx.who.ops,
                ctx.what.issue,
                code,
                reason,
                now=ctx.live.now(),
                stage=ctx.what.stage,
                details=details,
            )
            ctx.live.events.emit("stopped", code=code.value, reason=reason)
            stopped = Happened(
                "stopped", ctx.what.issue, state.pr, code.value, ctx.what.stage.value, reason
            )
            _notify(ctx, stopped)
            return StageEnd("stopped", state, f"{code.value}: {reason}")
        case Released(state=state, reason=reason, paused=paused):
            released = release(
                ctx.who.ops, ctx.what.issue, lane=ctx.live.lane, now=ctx.live.now(), state=state
            )
            if paused:
                why = redact(reason, ctx.who.token_secrets)
                set_aside(ctx.who.ops, ctx.what.issue, why, now=ctx.live.now())
            return StageEnd("released", released, reason)
        case Asked(questions=questions, state=state):
            _save(ctx, state)
            sig = signature(ctx.what, ctx.who.ops, ctx.what.stage.value)
            ask(ctx.who.ops, ctx.what.issue, questions, now=ctx.live.now(), signature=sig)
            ctx.live.events.emit("asked", questions=len(questions))
            return StageEnd("asked", state.model_copy(update={"lease": None}))
        case Split(parts=parts, state=state):
            _save(ctx, state)
            made = split(
                ctx.who.ops,
                ctx.what.issue,
                [Part(p.title, p.body, p.after) for p in parts],
                now=ctx.live.now(),
            )
            ctx.live.events.emit("split", sub_issues=list(made))
            return StageEnd("split", state.model_copy(update={"lease": None}), str(list(made)))
        case _:
            assert_never(end)


def _notify(ctx: JobContext, happened: Happened) -> None:
    """Tell the operator's `notify.command`; its failure is one line on stderr, not the job's."""
    problem = run_notify(
        ctx.what.config, ctx.who.environ, happened, cwd=ctx.where.run_dir,
        hidden=ctx.who.token_env,
    )  # fmt: skip
    if problem is not None:
        print(problem, file=sys.stderr)  # noqa: T201 - the job's own stderr, as its other notes


def restore_spec_md(ctx: JobContext, state: IssueState) -> None:
    """Rebuild `spec.md` from the signed `## Spec` comment when the state points at it."""
    target = ctx.where.run_dir / SPEC_MD
    if state.spec_file is None or target.is_file():
        return
    for comment in fetch_comments(ctx.who.ops, ctx.what.issue):
        if SPEC_MARK in comment.body and ctx.who.ops.trust().pipeline(comment):
            text = comment.body.split(f"{SPEC_HEADING}\n", 1)[-1].strip() + "\n"
            ctx.where.run_dir.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            return
