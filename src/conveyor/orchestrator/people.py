"""Which people's PRs start a review this tick, and why the others wait (BB-DISP-9..14).

Pure, and beside the issues' scheduler rather than in it: it runs after `schedule`, on
the gate that the issue starts left, so a requested review takes a slot from the same
pool (`max_jobs`) only when no ready issue wanted it (BB-DISP-9). A review is a job of
stage `pr-review` under the PR's number. What starts one:

- the trigger label, last added by a trusted person (an untrusted person's label is
  held with that reason, which the tick logs once: it is never removed or acted on);
- with `on_request`, a request for the account's review that stands, made by a trusted
  person, and not claimed by a pass yet (one request is one pass; an untrusted person's
  request is held and named like their label);
- with `review_assigned_prs`, an open PR by a trusted author that is not a draft, at a
  head no pass claimed or reviewed yet (BB-DISP-10).

Conveyor's own PRs (its account's, or on its `agent/` branches) are never reviewed. A PR
whose last review failed waits `backoff_polls` poll intervals (BB-DISP-14). Reviews
count against `stage_caps["pr-review"]` (else `readers_per_stage`) and `tokens_per_hour`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from conveyor.core.config import Config
from conveyor.core.review_request import ReviewRequest, unclaimed
from conveyor.core.state import Stage
from conveyor.orchestrator.agent_pauses import agent_hold
from conveyor.orchestrator.decisions import Hold, StartJob
from conveyor.orchestrator.gate import Gate, full_reason

PR_REVIEW = Stage.PR_REVIEW
# Sessions a review launches at least: the distiller, one angle, the reviewer.
LEAST_SESSIONS = 3


@dataclass(frozen=True, slots=True)
class PullView:
    """One open PR as the review rule sees it (the tick reads the forge and the records).

    `requested_by` is who last added the trigger label (None: it does not carry it);
    `asked` the request for the account's review that stands (None: none), and
    `claimed_requests` the ids of the requests a pass claimed; `reviewed_heads` the heads a
    pass claimed or a posted review recorded; `failed_at` when its last review failed.
    """

    number: int
    created_at: datetime
    author: str
    head_sha: str
    draft: bool = False
    own: bool = False
    requested_by: str | None = None
    requester_trusted: bool = False
    author_trusted: bool = False
    reviewed_heads: frozenset[str] = frozenset()
    failed_at: datetime | None = None
    asked: ReviewRequest | None = None
    asker_trusted: bool = False
    claimed_requests: frozenset[int] = frozenset()


@dataclass(frozen=True, slots=True)
class ReviewDecisions:
    """The reviews to start and the PRs held, each with its reason."""

    starts: tuple[StartJob, ...] = ()
    holds: tuple[Hold, ...] = ()


def _wanted(pull: PullView, config: Config) -> str | None:
    """Why the PR wants a review now, or None; an untrusted label says so as `!` + reason."""
    settings = config.pr_reviews
    if pull.requested_by is not None and settings.label is not None:
        if pull.requester_trusted:
            return f"{settings.label!r} added by @{pull.requested_by}"
        if not settings.review_assigned_prs:
            return f"!{settings.label!r} added by @{pull.requested_by}, who is not trusted: ignored"
    asked = unclaimed(pull.asked, pull.claimed_requests) if settings.on_request else None
    if asked is not None:
        if pull.asker_trusted:
            return f"review requested by @{asked.by}"
        if not settings.review_assigned_prs:
            return f"!review requested by @{asked.by}, who is not trusted: ignored"
    if not settings.review_assigned_prs or pull.draft or pull.head_sha in pull.reviewed_heads:
        return None
    if not pull.author_trusted:
        return f"!author @{pull.author} is not trusted: a trusted person's label reviews it"
    return f"head {pull.head_sha[:12]} not reviewed yet"


def _held(gate: Gate, config: Config, running: int, reviews: int, charges: int) -> str | None:
    """Why no review can start now: a pause, the job cap, the reviews' cap, tokens per hour."""
    full = full_reason(gate, config)
    if full is not None:
        return full
    limits = config.limits
    if running >= limits.max_jobs:
        return f"max-jobs {running}/{limits.max_jobs}"
    cap = limits.stage_caps.get("pr-review", limits.readers_per_stage)
    if reviews >= cap:
        return f"cap:pr-review {reviews}/{cap}"
    charge = LEAST_SESSIONS * config.budgets.review
    per_hour = limits.tokens_per_hour
    if per_hour and charges + charge > per_hour:
        return f"tokens-per-hour: {charges} charged this hour + {charge} > {per_hour}"
    return agent_hold(gate.agents, config, Stage.REVIEW) if gate.agents else None


def schedule_reviews(
    pulls: Iterable[PullView],
    config: Config,
    now: datetime,
    gate: Gate,
    issue_starts: tuple[StartJob, ...] = (),
) -> ReviewDecisions:
    """The reviews to start after the issues' starts, oldest PR first, and every hold."""
    if not config.pr_reviews.enabled:
        return ReviewDecisions()
    running = gate.running + len(issue_starts)
    reviews = gate.by_stage.get(PR_REVIEW, 0)
    charges = gate.charges + sum(s.charge for s in issue_starts)
    backoff = timedelta(seconds=config.pr_reviews.backoff_polls * config.limits.poll_seconds)
    starts: list[StartJob] = []
    holds: list[Hold] = []
    for pull in sorted(pulls, key=lambda p: (p.created_at, p.number)):
        if pull.own or pull.number in gate.busy:
            continue
        why = _wanted(pull, config)
        if why is None:
            continue
        if why.startswith("!"):
            holds.append(Hold(pull.number, PR_REVIEW, why[1:]))
            continue
        if pull.failed_at is not None and now < pull.failed_at + backoff:
            until = (pull.failed_at + backoff).isoformat()
            holds.append(
                Hold(pull.number, PR_REVIEW, f"backoff: the last review failed; until {until}")
            )
            continue
        held = _held(gate, config, running, reviews, charges)
        if held is not None:
            holds.append(Hold(pull.number, PR_REVIEW, held))
            continue
        charge = LEAST_SESSIONS * config.budgets.review
        starts.append(
            StartJob(pull.number, PR_REVIEW, f"review of a person's PR: {why}", charge=charge)
        )
        running, reviews, charges = running + 1, reviews + 1, charges + charge
    return ReviewDecisions(tuple(starts), tuple(holds))
