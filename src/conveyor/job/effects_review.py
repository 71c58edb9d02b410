"""The runner's review effects: the diff under review, and signed comments on the PR."""

from __future__ import annotations

from typing import assert_never

from conveyor.core.flows import review_thread
from conveyor.core.state import IssueState
from conveyor.job.context import JobContext
from conveyor.job.effects_forge import signature
from conveyor.job.stacking import measure_from
from conveyor.ops.findings import post_on_pr
from conveyor.ops.prepare_review import prepare_review
from conveyor.stages.effects import Done
from conveyor.stages.effects_review import (
    PostPrComment,
    PrepareReview,
    ReviewEffect,
    ReviewPrepared,
)

REVIEW_DIR = "review"


def run_prepare(ctx: JobContext, state: IssueState, effect: PrepareReview) -> ReviewPrepared:
    """Write the diff under the job folder, where the reader sessions are told to read it.

    A stacked issue's whole change is measured from its prerequisite head (STK-2).
    """
    target = ctx.where.job_dir / REVIEW_DIR / effect.name
    made = prepare_review(
        ctx.where.git, measure_from(ctx, state), target, since=effect.base_sha, wiki=ctx.where.wiki
    )
    return ReviewPrepared(str(made.path), made.head_sha, made.empty, made.paths)


def perform_review(
    ctx: JobContext, state: IssueState, effect: ReviewEffect
) -> ReviewPrepared | Done:
    """Carry out one of the review stages' own effects."""
    match effect:
        case PrepareReview():
            return run_prepare(ctx, state, effect)
        case PostPrComment(kind=kind, role=role, text=text):
            sig = signature(ctx, role)
            thread = review_thread(state, ctx.what.issue)
            post_on_pr(
                ctx.who.ops, thread, kind, text, signature=sig, secrets=ctx.who.token_secrets
            )
            return Done()
        case _:
            assert_never(effect)
