"""The ask op: post the questions, label needs-info, close live claims (CLAIM-5, STOP-13)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from conveyor.core.labels import Status, status_label
from conveyor.core.pickup import QUESTIONS
from conveyor.core.signatures import Signature
from conveyor.ops.forge.claim_comments import close_live_claims
from conveyor.ops.forge.context import OpContext
from conveyor.ops.forge.labels import set_agent_label
from conveyor.ops.forge.post import post_comment
from conveyor.ops.forge.state_store import fetch_state, save_state, state_of


def questions_text(questions: Sequence[str]) -> str:
    """The numbered questions and how to answer them."""
    lines = [f"{i}. {q.strip()}" for i, q in enumerate(questions, 1)]
    return (
        "### Questions before work can start\n\n"
        + "\n".join(lines)
        + "\n\nAn allowed user's reply on this issue resumes it; other replies are not read."
    )


def ask(
    ctx: OpContext,
    number: int,
    questions: Sequence[str],
    *,
    now: datetime,
    signature: Signature | None = None,
) -> None:
    """Ask the issue's author questions; the issue waits until a trusted reply (TRUST-7).

    The questions go up before the label, so a needs-info issue always has
    questions to be answered; the lease is cleared for whoever resumes it.
    """
    if not questions:
        msg = "ask: expected at least one question"
        raise ValueError(msg)
    issue = ctx.forge.get_issue(number)
    post_comment(ctx, number, QUESTIONS, questions_text(questions), signature)
    set_agent_label(ctx, number, issue.labels, status_label(Status.NEEDS_INFO))
    lookup = fetch_state(ctx, number)
    state = state_of(lookup)
    save_state(ctx, number, state.model_copy(update={"lease": None}), lookup)
    close_live_claims(ctx, number, now, "the pipeline asked questions and waits for an answer.")
