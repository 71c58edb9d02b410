"""The runner's forge and file effects: charges, signed comments and the spec file."""

from __future__ import annotations

from conveyor.core.budget import Charged as BudgetCharged
from conveyor.core.budget import charge, over_money
from conveyor.core.config import Role
from conveyor.core.redact import redact
from conveyor.core.signatures import Signature
from conveyor.core.state import IssueState
from conveyor.forge.types import Comment
from conveyor.job.context import JobContext
from conveyor.ops.context import fetch_comments
from conveyor.ops.post import post_comment
from conveyor.ops.state_store import save_state
from conveyor.stages.effects import ChargeBudget, Charged, PostComment, Refused, SaveSpecFile

SPEC_MD = "spec.md"


def run_charge(ctx: JobContext, state: IssueState, effect: ChargeBudget) -> Charged | Refused:
    """Charge the session's budget at launch and save the state with the charge (BUD-1).

    An issue whose sessions have cost `money.per_issue` already starts none (BB-PAUSE-4).
    """
    over = over_money(state, ctx.what.config.money.per_issue)
    if over is not None:
        return Refused(over.reason)
    paid = charge(state, effect.role, ctx.what.config.budgets, ctx.what.config.limits)
    if not isinstance(paid, BudgetCharged):
        return Refused(paid.reason)
    save_state(ctx.who.ops, ctx.what.issue, paid.state)
    return Charged(paid.state)


def signature(ctx: JobContext, role: str) -> Signature:
    """Who signs a comment posted for `role`: its configured agent and model."""
    try:
        choice = ctx.what.config.agents.for_role(Role(role))
    except ValueError:
        return ctx.who.ops.signature(role)
    return Signature(role, choice.agent, choice.model, ctx.what.run_id)


def _per_issue(ctx: JobContext, sig: Signature, kind: str) -> Comment | None:
    prefix = f"<!-- conveyor:comment role={sig.role} kind={kind} run="
    for comment in fetch_comments(ctx.who.ops, ctx.what.issue):
        if prefix in comment.body and ctx.who.ops.trust().pipeline(comment):
            return comment
    return None


def run_post(ctx: JobContext, effect: PostComment) -> Comment:
    """Post a signed comment, redacted of the token; a per-issue one is edited in place."""
    sig = signature(ctx, effect.role)
    text = redact(effect.text, ctx.who.token_secrets)
    if effect.per_issue:
        earlier = _per_issue(ctx, sig, effect.kind)
        if earlier is not None:
            body = sig.sign(effect.kind, text)
            return (
                earlier
                if earlier.body == body
                else ctx.who.forge.edit_comment(earlier.id, body, ctx.what.issue)
            )
    return post_comment(ctx.who.ops, ctx.what.issue, effect.kind, text, sig)


def save_spec_file(ctx: JobContext, effect: SaveSpecFile) -> None:
    """Write the whole spec as `runs/issue-N/spec.md`, atomically (SPEC-48)."""
    ctx.where.run_dir.mkdir(parents=True, exist_ok=True)
    partial = ctx.where.run_dir / f".{SPEC_MD}.partial"
    partial.write_text(effect.text, encoding="utf-8")
    partial.replace(ctx.where.run_dir / SPEC_MD)
