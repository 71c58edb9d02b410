"""Driving the review of a person's PR: each effect the machine asks for, carried out.

Sessions run as every job's do (`run_launch`: the box, the reply tool, the transcript,
the job file and so the ledger); reading the head, posting the review and the failure
note are the ops in `ops/forge/pr_review_post.py`. The review never pushes or merges.
"""

from __future__ import annotations

from conveyor.core.config import Role
from conveyor.core.session import SessionStatus
from conveyor.core.signatures import Signature
from conveyor.job.context import JobContext
from conveyor.job.effects.parts import ScenarioMissing
from conveyor.job.effects.session import run_launch
from conveyor.ops.forge.pr_review_post import note_on_pr, post_pr_review, read_pr_head
from conveyor.stages.effects import Done, LaunchSession, SessionEnded
from conveyor.stages.effects_pr_review import NoteOnPr, PostPrReview, ReadPrHead
from conveyor.stages.pr_review import PrEffect, PrInputs, PrResult, PrReviewEnd, start, transition


class Interrupted(RuntimeError):
    """SIGTERM or SIGINT arrived during the review."""


def signature_of(ctx: JobContext) -> Signature:
    """Who signs the review: the review role's agent and model, and this job."""
    choice = ctx.what.config.agents.for_role(Role.REVIEW)
    return Signature("review", choice.agent, choice.model, ctx.what.run_id)


def _launch(ctx: JobContext, effect: LaunchSession) -> SessionEnded:
    ended, _ = run_launch(ctx, effect)
    if isinstance(ended, ScenarioMissing):
        return SessionEnded(SessionStatus.FAILED, None, ended.reason)
    return ended


def perform(ctx: JobContext, effect: PrEffect) -> PrResult:
    """Carry out one effect and answer its result."""
    number, ops, secrets = ctx.what.issue, ctx.who.ops, ctx.who.token_secrets
    match effect:
        case LaunchSession():
            return _launch(ctx, effect)
        case ReadPrHead():
            return read_pr_head(ctx.who.forge, number)
        case PostPrReview():
            return post_pr_review(ops, number, effect, signature=signature_of(ctx), secrets=secrets)
        case NoteOnPr():
            note_on_pr(ops, number, effect, signature=signature_of(ctx), secrets=secrets)
            return Done()
    msg = f"the PR review has no op for {type(effect).__name__}"
    raise TypeError(msg)


def drive_review(ctx: JobContext, inputs: PrInputs) -> PrReviewEnd:
    """Run the review from its start to its end."""
    step = start(inputs)
    while not isinstance(step.action, PrReviewEnd):
        result = perform(ctx, step.action)
        if ctx.interrupted():
            raise Interrupted
        step = transition(step.memory, result)
    return step.action
