"""What the sessions of a review of a person's PR read of it: `issue.md` for a PR.

As for an issue (TRUST-5, TRUST-6): hidden markup stripped, long texts cut, and only
trusted people's words. The PR's description is its author's: an untrusted author's is
withheld like an untrusted comment (the diff is what is reviewed, and it is data).
Conversation comments, review bodies and inline review comments count alike.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from conveyor.core.issue_text import (
    BODY_LIMIT,
    COMMENT_LIMIT,
    IssueText,
    agent_visible,
    for_agents,
    one_line,
)
from conveyor.core.trust import Kind, Trust


@dataclass(frozen=True)
class PrWords:
    """One thing someone wrote on the PR: a comment, a review's body or an inline comment."""

    id: int
    author: str
    body: str
    created_at: datetime
    updated_at: datetime
    where: str = ""  # `path:line` of an inline comment


@dataclass(frozen=True)
class PrFacts:
    """The PR as the review is told of it."""

    number: int
    title: str
    author: str
    body: str
    head_ref: str
    head_sha: str
    base: str
    head_repo: str | None = None  # another repository's `OWNER/NAME` for a PR from a fork


def render_pr(pr: PrFacts, words: Iterable[PrWords], trust: Trust) -> IssueText:
    """The text of the PR's `issue.md`: its description and trusted words, oldest first."""
    shown: list[PrWords] = []
    withheld = 0
    for item in sorted(words, key=lambda w: (w.created_at, w.id)):
        if not item.body.strip():
            continue
        if agent_visible(item, trust):
            shown.append(item)
        elif trust.kind(item) is Kind.UNTRUSTED:
            withheld += 1
    fork = f" (from the fork {pr.head_repo})" if pr.head_repo else ""
    parts = [
        f"# #{pr.number}: {one_line(pr.title)}",
        f"A pull request by @{pr.author}: branch `{one_line(pr.head_ref)}`{fork} into "
        f"`{pr.base}`, head `{pr.head_sha}`.",
    ]
    if trust.user(pr.author):
        parts.append(for_agents(pr.body, BODY_LIMIT, "PR description") or "(no description)")
    else:
        withheld += 1 if pr.body.strip() else 0
        parts.append("(The description is withheld: its author is not a trusted user.)")
    for item in shown:
        stamp = item.created_at.strftime("%Y-%m-%d %H:%M UTC")
        place = f" on `{item.where}`" if item.where else ""
        parts.append(f"## Comment by @{item.author}{place} ({stamp})")
        parts.append(for_agents(item.body, COMMENT_LIMIT, "comment") or "(empty)")
    noun = "text" if withheld == 1 else "texts"
    parts.append(
        f"{withheld} {noun} from users who are not trusted withheld."
        if withheld
        else "Nothing withheld."
    )
    return IssueText("\n\n".join(parts) + "\n", withheld)
