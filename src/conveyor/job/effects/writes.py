"""The forge and file effects: charges, signed comments on the issue and the PR, the spec
file and the diff under review; their rows of the dispatch table."""

from __future__ import annotations

from pathlib import Path

from conveyor.core.budget import Charged as BudgetCharged
from conveyor.core.budget import charge, mark_ahead, over_money, take_ahead
from conveyor.core.config import Role
from conveyor.core.flows import review_thread
from conveyor.core.redact import redact
from conveyor.core.signatures import Signature
from conveyor.core.state import IssueState
from conveyor.forge.types import Comment
from conveyor.job.context import JobContext
from conveyor.job.effects.judging_inputs import review_facts
from conveyor.job.effects.parts import JobHands, JobPlace, JobSubject
from conveyor.job.effects.table import Dispatch
from conveyor.ops.forge.context import OpContext, fetch_comments
from conveyor.ops.forge.findings import post_on_pr
from conveyor.ops.forge.post import post_comment
from conveyor.ops.forge.stack import measure_from
from conveyor.ops.forge.state_store import save_state
from conveyor.ops.local.prepare_review import prepare_review
from conveyor.stages.effects import (
    ChargeBudget,
    Charged,
    Done,
    PostComment,
    Refused,
    SaveSpecFile,
)
from conveyor.stages.effects_review import PostPrComment, PrepareReview, ReviewPrepared

SPEC_MD = "spec.md"
REVIEW_DIR = "review"


def run_charge(
    what: JobSubject, ops: OpContext, state: IssueState, effect: ChargeBudget
) -> Charged | Refused:
    """Charge the session's budget at launch and save the state with the charge (BUD-1).

    A charge saved ahead for the role is taken without a save: the forge has it already.
    Else `effect.ahead` more sessions of the role are charged in the same save, as many as
    the pool holds (the launch that finds none left charges its own, or is refused, as it
    would have been). An issue whose sessions have cost `money.per_issue` already starts
    none (BB-PAUSE-4), a charge taken ahead or not.
    """
    over = over_money(state, what.config.money.per_issue)
    if over is not None:
        return Refused(over.reason)
    taken = take_ahead(state, effect.role)
    if taken is not None:
        return Charged(*taken)
    paid = charge(state, effect.role, what.config.budgets, what.config.limits)
    if not isinstance(paid, BudgetCharged):
        return Refused(paid.reason)
    at, saved = len(paid.state.charges) - 1, paid.state
    for _ in range(effect.ahead):
        more = charge(saved, effect.role, what.config.budgets, what.config.limits)
        if not isinstance(more, BudgetCharged):
            break
        saved = mark_ahead(more.state, len(more.state.charges) - 1)
    save_state(ops, what.issue, saved)
    return Charged(saved, at)


def signature(what: JobSubject, ops: OpContext, role: str) -> Signature:
    """Who signs a comment posted for `role`: its configured agent and model."""
    try:
        choice = what.config.agents.for_role(Role(role))
    except ValueError:
        return ops.signature(role)
    return Signature(role, choice.agent, choice.model, what.run_id)


def _per_issue(what: JobSubject, ops: OpContext, sig: Signature, kind: str) -> Comment | None:
    prefix = f"<!-- conveyor:comment role={sig.role} kind={kind} run="
    for comment in fetch_comments(ops, what.issue):
        if prefix in comment.body and ops.trust().pipeline(comment):
            return comment
    return None


def run_post(what: JobSubject, who: JobHands, effect: PostComment) -> Comment:
    """Post a signed comment, redacted of the token; a per-issue one is edited in place."""
    sig = signature(what, who.ops, effect.role)
    text = redact(effect.text, who.token_secrets)
    if effect.per_issue:
        earlier = _per_issue(what, who.ops, sig, effect.kind)
        if earlier is not None:
            body = sig.sign(effect.kind, text)
            return (
                earlier
                if earlier.body == body
                else who.forge.edit_comment(earlier.id, body, what.issue)
            )
    return post_comment(who.ops, what.issue, effect.kind, text, sig)


def save_spec_file(run_dir: Path, effect: SaveSpecFile) -> None:
    """Write the whole spec as `runs/issue-N/spec.md`, atomically (SPEC-48)."""
    run_dir.mkdir(parents=True, exist_ok=True)
    partial = run_dir / f".{SPEC_MD}.partial"
    partial.write_text(effect.text, encoding="utf-8")
    partial.replace(run_dir / SPEC_MD)


def run_prepare(
    what: JobSubject, where: JobPlace, state: IssueState, effect: PrepareReview
) -> ReviewPrepared:
    """Write the diff under the job folder, where the reader sessions are told to read it.

    A stacked issue's whole change is measured from its prerequisite head (STK-2). The
    diff opens with what the whole change does to the checks (`core.check_facts`).
    """
    target = where.job_dir / REVIEW_DIR / effect.name
    start = measure_from(where.git, what.base, state)
    facts = review_facts(what, where, state, start)
    made = prepare_review(
        where.git, start, target, since=effect.base_sha, wiki=where.wiki, facts=facts
    )
    return ReviewPrepared(str(made.path), made.head_sha, made.empty, made.paths, made.changed)


def run_post_on_pr(
    what: JobSubject, who: JobHands, state: IssueState, effect: PostPrComment
) -> Done:
    """Post a signed, redacted comment on the PR under review (the issue's thread)."""
    sig = signature(what, who.ops, effect.role)
    thread = review_thread(state, what.issue)
    post_on_pr(who.ops, thread, effect.kind, effect.text, signature=sig, secrets=who.token_secrets)
    return Done()


def post(ctx: JobContext, _state: IssueState, effect: PostComment) -> Done:
    """Post a signed comment on the issue."""
    run_post(ctx.what, ctx.who, effect)
    return Done()


def save_spec(ctx: JobContext, _state: IssueState, effect: SaveSpecFile) -> Done:
    """Keep the spec in the run folder."""
    save_spec_file(ctx.where.run_dir, effect)
    return Done()


def rows(table: Dispatch) -> None:
    """The forge and file effects' rows of the dispatch table."""
    table.on(ChargeBudget, lambda c, s, e: run_charge(c.what, c.who.ops, s, e))
    table.on(PostComment, post)
    table.on(SaveSpecFile, save_spec)
    table.on(PrepareReview, lambda c, s, e: run_prepare(c.what, c.where, s, e))
    table.on(PostPrComment, lambda c, s, e: run_post_on_pr(c.what, c.who, s, e))
