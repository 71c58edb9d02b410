"""Claiming one review of a person's PR: the trigger checked again, the head recorded first,
then the label removed (BB-DISP-11: one label is one pass, a killed job's included).

The trust gate holds here as in the orchestrator: a label counts only when the last to add
it was a trusted person; with `review_assigned_prs`, only a trusted author's PR that is not
a draft, at a head no pass claimed or reviewed yet. Conveyor's own PRs (its account's, or
on its `agent/` branches) are never reviewed this way.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from conveyor.core.pr_review_record import Recorded, read_marker
from conveyor.core.trust import Trust, same_login
from conveyor.forge.protocol import Forge
from conveyor.forge.types import PullRequest
from conveyor.job.pr_review.record import Claim, Trigger, load_record, save_record

OWN_PREFIX = "agent/"


@dataclass(frozen=True)
class Claimed:
    """A claimed pass: the PR as read, the head to review, what asked, the last review."""

    pr: PullRequest
    head: str
    trigger: Trigger
    earlier: Recorded | None
    reviewed_heads: frozenset[str]


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


def _trigger(
    forge: Forge, pr: PullRequest, labels: tuple[str, ...], trust: Trust, config: ClaimRules
) -> Trigger | str:
    label = config.label
    if label is not None and any(name.casefold() == label.casefold() for name in labels):
        who = requested_by(forge, pr.number, label)
        if who is not None and trust.user(who):
            return "label"
        if not config.assigned:
            return f"the label {label!r} was added by @{who or 'unknown'}, who is not trusted"
    if not config.assigned:
        return f"no trusted {label!r} label on the PR"
    if pr.draft:
        return "the PR is a draft"
    if not trust.user(pr.author):
        return f"its author @{pr.author} is not trusted (a trusted person's label reviews it)"
    return "assigned"


@dataclass(frozen=True)
class ClaimRules:
    """What starts a review: the label, and whether every trusted author's PR is reviewed."""

    label: str | None
    assigned: bool


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
    trigger = _trigger(forge, pr, labels, trust, rules)
    if trigger not in ("label", "assigned"):
        return trigger
    record = load_record(home, number)
    posted = posted_reviews(forge, number, trust)
    reviewed = record.heads | {r.head for r in posted}
    if trigger == "assigned" and pr.head_sha in reviewed:
        return f"head {pr.head_sha[:12]} was reviewed already"
    chosen: Trigger = "label" if trigger == "label" else "assigned"
    save_record(home, record.claimed(Claim(pr.head_sha, chosen, job, now)))
    if chosen == "label" and rules.label is not None:
        wanted = rules.label.casefold()
        forge.remove_label(number, next(n for n in labels if n.casefold() == wanted))
    earlier = next((r for r in reversed(posted) if r.head != pr.head_sha), None)
    return Claimed(pr, pr.head_sha, chosen, earlier, frozenset(reviewed))
