"""The stop op: label, signed comment on issue and PR, `stopped` in the state (STOP-1..13)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from conveyor.core.labels import stop_label
from conveyor.core.restart import restart_note
from conveyor.core.state import Stage, Stopped
from conveyor.core.stop_text import stop_text
from conveyor.core.stops import StopCode
from conveyor.ops.forge.claim_comments import close_live_claims
from conveyor.ops.forge.context import OpContext, fetch_comments
from conveyor.ops.forge.labels import set_agent_label
from conveyor.ops.forge.post import post_comment
from conveyor.ops.forge.state_store import fetch_state, refusal, save_state, state_of

STOP_KIND = "stop"


@dataclass(frozen=True)
class StopDone:
    """What the stop changed: the issue's labels, the PR commented on, whether state was saved."""

    labels: tuple[str, ...]
    pr: int | None
    state_saved: bool


def stop(
    ctx: OpContext,
    number: int,
    code: StopCode,
    reason: str,
    *,
    now: datetime,
    stage: Stage | None = None,
    details: str = "",
) -> StopDone:
    """Stop an issue with `code`; safe to run again after a crash at any point.

    Order matters for a crash: the stop label goes on first, so a sweep never
    sees the stop in the state without its label (which would read as a
    restart). A state that is newer than this code or does not decode is left
    as it is; the label and comment still tell people why.
    """
    issue = ctx.forge.get_issue(number)
    lookup = fetch_state(ctx, number)
    state = state_of(lookup) if refusal(lookup) is None else None
    labels = set_agent_label(ctx, number, issue.labels, stop_label(code))
    restarts = None
    if state is not None:
        stopped = Stopped(control=code, reason=reason, stage=stage or state.stage, at=now)
        restarts = restart_note(state.model_copy(update={"stopped": stopped}))
    text = stop_text(code, reason, details, issue=number, restarts=restarts)
    post_comment(ctx, number, STOP_KIND, text)
    pr = state.pr if state is not None else None
    if pr is not None:
        post_comment(ctx, pr, STOP_KIND, text)
    if state is not None:
        stopped = Stopped(control=code, reason=reason, stage=stage or state.stage, at=now)
        save_state(ctx, number, state.model_copy(update={"stopped": stopped}), lookup)
    close_live_claims(
        ctx, number, now, f"the issue stopped (`{code.value}`).", fetch_comments(ctx, number)
    )
    return StopDone(labels, pr, state is not None)
