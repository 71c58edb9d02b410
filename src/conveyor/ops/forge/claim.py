"""The claim op: race other lanes for an issue, then lease it and take its text (CLAIM-1..13)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Literal

from conveyor.core.claims import (
    Claim,
    Keep,
    Skip,
    before_posting,
    claim_body,
    claim_wait,
    parse_claims,
    race_winner,
)
from conveyor.core.labels import Status, status_label
from conveyor.core.pickup import IssueFacts, Pickup, Reason, answered, pickup
from conveyor.core.restart import restart
from conveyor.core.state import IssueState, Lease
from conveyor.core.state_codec import StateLookup, TooNew, Undecodable, find_state
from conveyor.forge.types import Comment, Issue
from conveyor.ops.forge.claim_comments import close_claims
from conveyor.ops.forge.context import OpContext, fetch_comments
from conveyor.ops.forge.issue_md import ISSUE_MD, read_kept, taken_for
from conveyor.ops.forge.labels import set_agent_label
from conveyor.ops.forge.state_store import save_state
from conveyor.ops.forge.taking import take_issue


@dataclass(frozen=True)
class Won:
    """The lane holds the issue: its state (restarted if it was one) and issue.md."""

    number: int
    state: IssueState
    restarted: bool
    issue_md: Path


@dataclass(frozen=True)
class Lost:
    """Another lane holds a live claim; ours (if any) is closed with why."""

    number: int
    holder: str


@dataclass(frozen=True)
class Skipped:
    """The issue does not wait for work (e.g. `waiting-for-answer`, `left-stopped`)."""

    number: int
    reason: Reason


ClaimOutcome = Won | Lost | Skipped


def issue_facts(issue: Issue, comments: tuple[Comment, ...], ctx: OpContext) -> IssueFacts:
    """What pickup reads of an issue, from the forge's answers."""
    lookup = find_state(comments, ctx.account)
    problem: Literal["too-new", "undecodable"] | None = None
    if isinstance(lookup.outcome, TooNew):
        problem = "too-new"
    elif isinstance(lookup.outcome, Undecodable):
        problem = "undecodable"
    return IssueFacts(
        number=issue.number,
        author=issue.author,
        open=issue.state == "open",
        labels=issue.labels,
        state=lookup.state,
        state_problem=problem,
        answered=answered(comments, ctx.trust()),
    )


def decide(
    ctx: OpContext, issue: Issue, comments: tuple[Comment, ...], now: datetime, **run: bool
) -> Pickup:
    """The pickup rule for one issue as read from the forge."""
    hours = ctx.config.limits.lease_hours
    return pickup(issue_facts(issue, comments, ctx), ctx.trust(), now, hours, **run)


def claim(
    ctx: OpContext,
    number: int,
    *,
    lane: str,
    now: datetime,
    folder: Path,
    wait: Callable[[float], None],
    unit: float,
    by_number: bool = False,
    take_stopped: bool = False,
    landing: bool = False,
) -> ClaimOutcome:
    """Claim one issue for `lane` (its claim marker carries `ctx.run_id` as the sweep id).

    `unit` in [0, 1) picks the wait within claim_wait_seconds; `wait` sleeps.
    Running it again after a crash finds the lane's claim by its marker and
    finishes: the state's lease, the working label, issue.md.
    """
    limits = ctx.config.limits
    issue = ctx.forge.get_issue(number)
    comments = fetch_comments(ctx, number)
    decision = decide(
        ctx, issue, comments, now, by_number=by_number, take_stopped=take_stopped, landing=landing
    )
    claims = parse_claims(comments, ctx.account)
    before = before_posting(claims, lane, now, limits.lease_hours)
    if decision.action == "skip" and not (decision.reason == "leased" and isinstance(before, Keep)):
        return Skipped(number, decision.reason)
    if isinstance(before, Skip):
        close_claims(ctx, number, before.close, f"lane `{before.holder}` claimed the issue first.")
        return Lost(number, before.holder)
    fresh = not isinstance(before, Keep)
    claim_key = f"{lane} {before.claim.sweep if isinstance(before, Keep) else ctx.run_id}"
    if fresh:
        posted = ctx.forge.create_comment(number, claim_body(ctx.signature(), lane, ctx.run_id))
        own = Claim(posted.id, lane, ctx.run_id, closed=False, updated_at=posted.updated_at)
        wait(claim_wait(limits.claim_wait_seconds, unit))
        comments = fetch_comments(ctx, number, fresh=True)  # the race: other lanes' claims
        winner = race_winner(parse_claims(comments, ctx.account), own, now, limits.lease_hours)
        if winner.comment_id != own.comment_id:
            close_claims(ctx, number, [own], f"lane `{winner.lane}` claimed the issue first.")
            return Lost(number, winner.lane)
    return _take(
        ctx,
        issue=issue,
        comments=comments,
        lane=lane,
        now=now,
        folder=folder,
        decision=decision,
        claim_key=claim_key,
    )


def _take(
    ctx: OpContext,
    *,
    issue: Issue,
    comments: tuple[Comment, ...],
    lane: str,
    now: datetime,
    folder: Path,
    decision: Pickup,
    claim_key: str,
) -> Won:
    lookup: StateLookup = find_state(comments, ctx.account)
    base = lookup.state or IssueState()
    restarted = decision.action == "restart"
    if restarted and base.stopped is not None:  # not yet restarted by an earlier attempt
        base = restart(base)
    lease = Lease(lane=lane, job_id=ctx.run_id, at=now)
    same_holder = base.lease is not None and (base.lease.lane, base.lease.job_id) == (
        lane,
        ctx.run_id,
    )
    state = base if same_holder else base.model_copy(update={"lease": lease})
    target = folder / ISSUE_MD
    if not target.exists() or taken_for(folder) != claim_key:  # taken once per claim
        taken = take_issue(ctx, folder, issue, comments, state.taken, claim=claim_key)
        target, hashes = taken.path, taken.hashes
    else:
        hashes = read_kept(folder)[1]
    state = state.model_copy(update={"taken": hashes})
    save_state(ctx, issue.number, state, lookup)
    set_agent_label(ctx, issue.number, issue.labels, status_label(Status.WORKING))
    return Won(issue.number, state, restarted, target)


def claim_first(
    ctx: OpContext,
    candidates: Sequence[int],
    *,
    lane: str,
    now: datetime,
    home: Path,
    wait: Callable[[float], None],
    units: Callable[[], float],
) -> tuple[Won | None, tuple[int, ...]]:
    """Claim the candidates in order until one wins; the others tried are `abandoned` (CLAIM-9).

    `home` is the repository's folder under `$CONVEYOR_HOME`; each issue's
    text goes to `home/runs/issue-N/issue.md`.
    """
    abandoned: list[int] = []
    for number in candidates:
        folder = home / "runs" / f"issue-{number}"
        outcome = claim(ctx, number, lane=lane, now=now, folder=folder, wait=wait, unit=units())
        if isinstance(outcome, Won):
            return outcome, tuple(abandoned)
        abandoned.append(number)
    return None, tuple(abandoned)
