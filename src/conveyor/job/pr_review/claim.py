"""Claiming one review of a person's PR: the trigger checked again, the head recorded first,
then the label removed (BB-DISP-11: one label is one pass, a killed job's included), or the
account taken off the PR's requested reviewers (one request is one pass: the claim records
the request's id too, so a request left standing by a killed job starts nothing more).

The trust gate holds here as in the orchestrator: a label counts only when the last to add
it was a trusted person, a request only when a trusted person made it; with
`review_assigned_prs`, only a trusted author's PR that is not a draft, at a head no pass
claimed or reviewed yet. Conveyor's own PRs (its account's, or
on its `agent/` branches) are never reviewed this way.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from conveyor.core.pr_review_record import Recorded, read_marker
from conveyor.core.review_request import ReviewRequest, standing_request, unclaimed
from conveyor.core.trust import Trust, same_login
from conveyor.forge.errors import ForgeError
from conveyor.forge.protocol import Forge
from conveyor.forge.types import PullRequest
from conveyor.job.pr_review.record import TRIGGERS, Claim, Trigger, load_record, save_record

OWN_PREFIX = "agent/"


@dataclass(frozen=True)
class Claimed:
    """A claimed pass: the PR as read, the head to review, what asked, the last review;
    `note` says what the claim could not do (the job logs it)."""

    pr: PullRequest
    head: str
    trigger: Trigger
    earlier: Recorded | None
    reviewed_heads: frozenset[str]
    note: str = ""


def own_pr(author: str, head_ref: str, account: str) -> bool:
    """Whether a PR is Conveyor's own: its account's, or on its `agent/` branches."""
    return same_login(author, account) or head_ref.startswith(OWN_PREFIX)


def requested_by(forge: Forge, number: int, label: str) -> str | None:
    """Who last added `label` to PR `number` (None: nobody, or it was removed since)."""
    who: str | None = None
    for event in forge.list_label_events(number):
        if event.label.casefold() == label.casefold():
            who = event.actor if event.action == "labeled" else None
    return who


def posted_reviews(forge: Forge, number: int, trust: Trust) -> tuple[Recorded, ...]:
    """The reviews the pipeline's account posted on the PR, oldest first (their records)."""
    found = []
    for review in forge.list_reviews(number):
        if same_login(review.author, trust.account):
            recorded = read_marker(review.body)
            if recorded is not None:
                found.append(recorded)
    return tuple(found)


def asked_by(forge: Forge, number: int, account: str) -> ReviewRequest | None:
    """The request for `account`'s review of PR `number` that stands (None: none)."""
    return standing_request(forge.list_review_requests(number), account)


@dataclass(frozen=True)
class ClaimRules:
    """What starts a review: the label, a request for the account's review (`on_request`),
    and whether every trusted author's PR is reviewed."""

    label: str | None
    assigned: bool
    on_request: bool = False


@dataclass(frozen=True)
class _Asks:
    """What asks for this pass: a trusted person's label, their standing request (not
    claimed yet), and why an ask that is there does not count."""

    label: bool
    request: ReviewRequest | None
    refused: tuple[str, ...]


def _asks(
    forge: Forge, pr: PullRequest, labels: tuple[str, ...], trust: Trust, rules: ClaimRules, *,
    claimed: frozenset[int],
) -> _Asks:  # fmt: skip
    refused: list[str] = []
    label, labelled = rules.label, False
    if label is not None and any(name.casefold() == label.casefold() for name in labels):
        who = requested_by(forge, pr.number, label)
        labelled = who is not None and trust.user(who)
        if not labelled:
            refused.append(
                f"the label {label!r} was added by @{who or 'unknown'}, who is not trusted"
            )
    request = None
    if rules.on_request and any(same_login(r, trust.account) for r in pr.requested_reviewers):
        request = unclaimed(asked_by(forge, pr.number, trust.account), claimed)
        if request is not None and not trust.user(request.by):
            refused.append(f"the review was requested by @{request.by}, who is not trusted")
            request = None
    return _Asks(labelled, request, tuple(refused))


def _trigger(pr: PullRequest, asks: _Asks, trust: Trust, rules: ClaimRules) -> Trigger | str:
    if asks.label:
        return "label"
    if asks.request is not None:
        return "request"
    if not rules.assigned:
        if asks.refused:
            return "; ".join(asks.refused)
        wanted = [f"trusted {rules.label!r} label"] if rules.label is not None else []
        wanted += ["trusted request for a review"] if rules.on_request else []
        return f"no {' or '.join(wanted) or 'trigger'} on the PR"
    if pr.draft:
        return "the PR is a draft"
    if not trust.user(pr.author):
        return f"its author @{pr.author} is not trusted (a trusted person's label reviews it)"
    return "assigned"


def claim_review(
    forge: Forge, home: Path, trust: Trust, rules: ClaimRules, number: int, *, job: str,
    now: datetime,
) -> Claimed | str:  # fmt: skip
    """Claim one pass over PR `number`'s head, or say why not (nothing changed then)."""
    pr = forge.get_pr(number)
    if pr.state != "open":
        return "the PR is not open"
    if own_pr(pr.author, pr.head_ref, trust.account):
        return "the PR is Conveyor's own"
    labels = forge.get_issue(number).labels
    record = load_record(home, number)
    asks = _asks(forge, pr, labels, trust, rules, claimed=record.requests)
    chosen = _trigger(pr, asks, trust, rules)
    if chosen not in TRIGGERS:
        return chosen
    posted = posted_reviews(forge, number, trust)
    reviewed = record.heads | {r.head for r in posted}
    if chosen == "assigned" and pr.head_sha in reviewed:
        return f"head {pr.head_sha[:12]} was reviewed already"
    request = asks.request.id if asks.request is not None else None
    save_record(home, record.claimed(Claim(pr.head_sha, chosen, job, now, request=request)))
    if asks.label and rules.label is not None:
        wanted = rules.label.casefold()
        forge.remove_label(number, next(n for n in labels if n.casefold() == wanted))
    note = ""
    if asks.request is not None:  # the pass answers the request: the account is taken off
        try:
            forge.remove_requested_reviewers(number, [trust.account])
        except ForgeError as exc:  # the request is spent already; the posted review clears it
            note = f"could not take the account off the requested reviewers: {exc}"
    earlier = next((r for r in reversed(posted) if r.head != pr.head_sha), None)
    return Claimed(pr, pr.head_sha, chosen, earlier, frozenset(reviewed), note)
