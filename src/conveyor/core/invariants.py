"""Invariants of a repository snapshot that must hold after every step (tests and the doctor)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from conveyor.core.claims import live_claims, parse_claims
from conveyor.core.labels import agent_labels
from conveyor.core.state_codec import is_state_body
from conveyor.core.trust import CommentLike, same_login


@dataclass(frozen=True)
class PrSnapshot:
    """The PR of an issue, as the conventions need it."""

    number: int
    title: str
    body: str


@dataclass(frozen=True)
class IssueSnapshot:
    """One issue with its labels, comments and PR."""

    number: int
    open: bool
    labels: tuple[str, ...]
    comments: tuple[CommentLike, ...]
    pr: PrSnapshot | None = None


@dataclass(frozen=True)
class Snapshot:
    """The repository as seen at one moment, with the account and lease length."""

    account: str
    now: datetime
    lease_hours: float
    issues: tuple[IssueSnapshot, ...]


@dataclass(frozen=True)
class Violation:
    """One broken invariant on one issue."""

    number: int
    rule: str
    detail: str


def _issue_violations(snap: Snapshot, issue: IssueSnapshot) -> list[Violation]:
    found: list[Violation] = []
    n = issue.number
    states = [
        c.id for c in issue.comments if same_login(c.author, snap.account) and is_state_body(c.body)
    ]
    if len(states) > 1:
        found.append(Violation(n, "one-state-comment", f"state comments {sorted(states)}"))
    status = agent_labels(issue.labels)
    if len(status) > 1:
        found.append(Violation(n, "one-status-label", f"labels {sorted(status)}"))
    live = live_claims(parse_claims(issue.comments, snap.account), snap.now, snap.lease_hours)
    if not issue.open and live:
        ids = [c.comment_id for c in live]
        found.append(Violation(n, "no-live-claim-when-closed", f"live claims {ids}"))
    if issue.open and len(live) > 1:
        ids = [c.comment_id for c in live]
        found.append(Violation(n, "one-live-claim", f"live claims {ids}"))
    pr = issue.pr
    if pr is not None:
        if not re.search(rf"\(#{n}\)$", pr.title.strip()):
            found.append(Violation(n, "pr-title", f"PR #{pr.number} title must end with (#{n})"))
        if not pr.body.startswith(f"Closes #{n}"):
            found.append(
                Violation(n, "pr-body", f"PR #{pr.number} body must open with 'Closes #{n}'")
            )
    return found


def check_invariants(snapshot: Snapshot) -> tuple[Violation, ...]:
    """Every violation in the snapshot; empty when all invariants hold."""
    return tuple(v for issue in snapshot.issues for v in _issue_violations(snapshot, issue))
