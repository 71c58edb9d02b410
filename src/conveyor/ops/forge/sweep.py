"""The sweep op: the issues waiting for work, oldest first, up to claim_candidates (CLAIM-4..8)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime

from conveyor.core.claims import Keep, Skip, before_posting, parse_claims
from conveyor.core.labels import has_stop_label
from conveyor.core.pickup import Reason
from conveyor.core.state_codec import Undecodable, find_state
from conveyor.core.stops import StopCode
from conveyor.core.trust import same_login
from conveyor.forge.types import Comment, Issue
from conveyor.ops.forge.claim import decide
from conveyor.ops.forge.context import OpContext, fetch_comments
from conveyor.ops.forge.stop import stop


class WrongAccount(RuntimeError):
    """The token does not act as the configured account (GH-16): nothing is trusted then."""


@dataclass(frozen=True)
class SweepResult:
    """The candidates in claim order, and why each other open issue was passed over."""

    candidates: tuple[int, ...]
    skipped: dict[int, Reason | str] = field(default_factory=dict)
    duplicate_states: dict[int, tuple[int, ...]] = field(default_factory=dict)
    stopped_broken: tuple[int, ...] = ()


def stop_undecodable(
    ctx: OpContext, issue: Issue, comments: tuple[Comment, ...], now: datetime
) -> None:
    """Stop an issue whose state comment does not decode, linking the bad comment.

    The stop's run id comes from the bad comment, so every sweep finishes the
    same stop instead of posting another.
    """
    lookup = find_state(comments, ctx.account)
    bad = next(c for c in comments if c.id == lookup.comment_id)
    why = lookup.outcome.reason if isinstance(lookup.outcome, Undecodable) else "unknown"
    stop(
        replace(ctx, run_id=f"bad-state-{bad.id}"),
        issue.number,
        StopCode.ERROR,
        f"the state comment {bad.html_url} does not decode",
        now=now,
        details=f"{why}\n\nFix or delete that comment, then remove the stop label.",
    )


def sweep(ctx: OpContext, *, lane: str, now: datetime) -> SweepResult:
    """List the waiting issues for `lane`: its own leased issues first, then oldest first.

    Issues under another lane's live claim are left out. An issue whose state
    does not decode is stopped with `error` here, since no stage can run it
    (issues labelled `agent:stopped-error` are read again, so a stop that was
    cut short is finished).
    """
    acting = ctx.forge.whoami()
    if not same_login(acting, ctx.account):
        msg = f"sweep: the forge token acts as {acting!r}, not the configured {ctx.account!r}"
        raise WrongAccount(msg)
    hours = ctx.config.limits.lease_hours
    issues = sorted(ctx.forge.list_open_issues().issues, key=lambda i: (i.created_at, i.number))
    own: list[int] = []
    others: list[int] = []
    skipped: dict[int, Reason | str] = {}
    duplicates: dict[int, tuple[int, ...]] = {}
    broken: list[int] = []
    for issue in issues:
        stopped = has_stop_label(issue.labels)
        if stopped and StopCode.ERROR.label not in issue.labels:
            skipped[issue.number] = "stopped"
            continue
        comments = fetch_comments(ctx, issue.number)
        lookup = find_state(comments, ctx.account)
        if lookup.duplicates:
            duplicates[issue.number] = lookup.duplicates
        decision = decide(ctx, issue, comments, now)
        before = before_posting(parse_claims(comments, ctx.account), lane, now, hours)
        if decision.reason == "state-undecodable" and ctx.trust().user(issue.author):
            stop_undecodable(ctx, issue, comments, now)
            broken.append(issue.number)
        elif stopped:
            skipped[issue.number] = "stopped"
        elif isinstance(before, Skip):
            skipped[issue.number] = f"claimed by lane {before.holder}"
        elif decision.action != "skip" or (
            decision.reason == "leased" and isinstance(before, Keep)
        ):
            (own if isinstance(before, Keep) else others).append(issue.number)
        else:
            skipped[issue.number] = decision.reason
    limit = ctx.config.limits.claim_candidates
    return SweepResult(tuple((own + others)[:limit]), skipped, duplicates, tuple(broken))
