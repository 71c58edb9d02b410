"""People's feedback on the PR as findings: what is new, whose counts, where it sends the issue.

A review, an inline review comment or a PR conversation comment by a trusted person
(BB-FB) becomes a blocking finding of the `feedback` lens, the person's words quoted
as data (hidden markup and invisible characters stripped). Visitors' items are
withheld and counted, the pipeline's own comments are skipped, and so are reviews
with nothing to act on: an empty body (its inline comments are items of their own),
an approval, a pending or a dismissed review. The issue's `feedback` clock records the
newest id of each kind read, so an item is taken once: as it read then, whatever later
edits make of it.

A trusted person's item last edited by someone who is not trusted, or read without who
last edited it, is *held* (TRUST-12, the rule of `Trust.text`): no session reads it, and
the note on the PR names it, who edited it and how to have it taken (post it again: the
clock has passed it).

Which stages read it (and where the issue goes): a review or fix job takes the
findings into the round it runs; a job at sync, checks, accept, security or merge
sends the issue back to fix. People's feedback gets fresh fix rounds, as a security
review's findings do (SEC-3): the bound is for the pipeline's own loops, and every
round of this kind is a person's request. Spec and implement jobs leave it for the
review that follows them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from conveyor.core.findings import next_number
from conveyor.core.issue_text import strip_hidden
from conveyor.core.signatures import has_marker
from conveyor.core.state import FeedbackSeen, Finding, IssueState, Stage
from conveyor.core.trust import Edits, TextTrust, Trust, same_login

FEEDBACK = "feedback"
ItemKind = Literal["review", "review_comment", "comment"]
KINDS: tuple[ItemKind, ...] = ("review", "review_comment", "comment")
EVIDENCE_CHARS = 4000
# Review states with nothing to act on: approving asks for no change.
_SILENT_REVIEWS = frozenset({"APPROVED", "PENDING", "DISMISSED"})
TAKEN_IN = frozenset({Stage.REVIEW, Stage.FIX})
SENT_TO_FIX = frozenset({Stage.SYNC, Stage.CHECKS, Stage.ACCEPT, Stage.SECURITY, Stage.MERGE})


@dataclass(frozen=True)
class Item:
    """One piece of feedback as read from the PR; `state` is a review's state, `edits` who
    last edited it (None: the read did not say, and the item is held unless read again)."""

    kind: ItemKind
    id: int
    author: str
    body: str
    url: str = ""
    state: str = ""
    path: str | None = None
    line: int | None = None
    edits: Edits | None = None


@dataclass(frozen=True)
class Taken:
    """What one read of the PR gave: the new state, its new findings (and whose they are),
    how many items of people who are not trusted were withheld, and the trusted people's
    items held: last edited by someone not trusted, or read without their editor."""

    state: IssueState
    findings: tuple[Finding, ...]
    withheld: int
    people: tuple[str, ...] = ()
    held: tuple[Item, ...] = ()


def reads_feedback(stage: Stage) -> bool:
    """Whether a job at `stage` reads people's feedback on the PR first."""
    return stage in TAKEN_IN or stage in SENT_TO_FIX


def _quoted(text: str) -> str:
    if len(text) > EVIDENCE_CHARS:
        text = text[:EVIDENCE_CHARS].rstrip() + " … (cut here; read the rest on the PR)"
    return "\n".join(f"> {line}" if line else ">" for line in text.splitlines())


def _said(item: Item) -> str:
    if item.kind == "review":
        verb = "requested changes in a review" if item.state == "CHANGES_REQUESTED" else "reviewed"
        return f"@{item.author} {verb}"
    if item.kind == "review_comment":
        where = f"`{item.path}` line {item.line}" if item.line else f"`{item.path}`"
        return f"@{item.author} commented on {where}"
    return f"@{item.author} commented on the PR"


def _finding(number: int, item: Item, text: str) -> Finding:
    link = f" ({item.url})" if item.url else ""
    return Finding(
        id=f"F{number}",
        lens=FEEDBACK,
        severity="blocking",
        file=item.path,
        line=item.line,
        evidence=f"{_said(item)}{link}:\n{_quoted(text)}",
        suggestion="Do what the person asks, as far as the issue allows.",
    )


def _seen(clock: FeedbackSeen, kind: ItemKind) -> int:
    seen: int = getattr(clock, kind)
    return seen


def _nothing(item: Item, trust: Trust) -> bool:
    """The pipeline's own comment, or an item with nothing to act on."""
    if same_login(item.author, trust.account) and has_marker(item.body):
        return True
    silent = item.kind == "review" and item.state in _SILENT_REVIEWS
    return silent or not strip_hidden(item.body).strip()


def unknown_edits(items: Iterable[Item], clock: FeedbackSeen, trust: Trust) -> bool:
    """Whether an item `take` would weigh came without who last edited it (a REST read): a
    trusted person's new item with something to act on."""
    return any(
        item.edits is None
        and item.id > _seen(clock, item.kind)
        and trust.user(item.author)
        and not _nothing(item, trust)
        for item in items
    )


def take(state: IssueState, items: Iterable[Item], trust: Trust) -> Taken:
    """Read the items newer than the state's clock: findings for people, a count for
    visitors, and held the items of people that someone else last edited."""
    clock = state.feedback
    newest = {kind: _seen(clock, kind) for kind in KINDS}
    found: list[Finding] = []
    people: dict[str, str] = {}
    held: list[Item] = []
    withheld = 0
    number = next_number(state.findings)
    for item in sorted(items, key=lambda i: (KINDS.index(i.kind), i.id)):
        if item.id <= _seen(clock, item.kind):
            continue
        newest[item.kind] = max(newest[item.kind], item.id)
        if _nothing(item, trust):
            continue
        verdict = trust.text(item.author, item.edits)
        if verdict is TextTrust.UNTRUSTED_AUTHOR:
            withheld += 1
            continue
        if verdict is not TextTrust.TRUSTED:
            held.append(item)
            continue
        found.append(_finding(number, item, strip_hidden(item.body).strip()))
        people.setdefault(item.author.casefold(), item.author)
        number += 1
    update: dict[str, object] = {"feedback": FeedbackSeen(**newest)}
    if found:
        rounds = state.rounds.model_copy(update={"fix": 0})
        update |= {"findings": (*state.findings, *found), "rounds": rounds}
    people_ = tuple(people.values())
    return Taken(state.model_copy(update=update), tuple(found), withheld, people_, tuple(held))


def route(stage: Stage, state: IssueState) -> tuple[Stage, IssueState]:
    """Where a job at `stage` goes once it took feedback: on with its round, or back to fix."""
    if stage not in SENT_TO_FIX:
        return stage, state
    update = {"stage": Stage.FIX, "ci_wait": None, "merge_rebase": False, "rereview": None}
    return Stage.FIX, state.model_copy(update=update)
