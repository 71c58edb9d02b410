"""`issue.md`: what agents read of an issue, cleaned of hidden markup (TRUST-5, 6, 11, 12)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from conveyor.core.signatures import parse_marker
from conveyor.core.state_codec import is_state_body
from conveyor.core.trust import CommentLike, Kind, Trust

_HIDDEN = re.compile(r"<!--.*?(?:-->|$)", re.DOTALL)
_LINE_BREAKS = {"\u2028": "\n", "\u2029": "\n\n"}
# Pipeline comments left out of what agents read: claims and the state.
_LEFT_OUT_KINDS = frozenset({"claim"})


def strip_hidden(text: str) -> str:
    """Drop HTML comments and invisible or bidirectional control characters.

    Format characters (Unicode category Cf: zero-width spaces and joiners,
    bidi embeddings, overrides and isolates, tag characters, the BOM) can
    hide instructions from a person reading the issue; none is needed by an
    agent. Unterminated comments are dropped to the end of the text.
    """
    text = _HIDDEN.sub("", text)
    kept = []
    for char in text:
        if char in _LINE_BREAKS:
            kept.append(_LINE_BREAKS[char])
        elif unicodedata.category(char) != "Cf":
            kept.append(char)
    return "".join(kept)


def is_claim_body(body: str) -> bool:
    """Whether a body is a claim comment (open or closed)."""
    return "<!-- conveyor:claim" in body


def agent_visible(comment: CommentLike, trust: Trust) -> bool:
    """Whether a comment goes into `issue.md`: trusted, and neither a claim nor the state."""
    kind = trust.kind(comment)
    if kind is Kind.UNTRUSTED:
        return False
    if kind is Kind.PIPELINE:
        if is_state_body(comment.body) or is_claim_body(comment.body):
            return False
        marker = parse_marker(comment.body)
        return marker is None or marker.kind not in _LEFT_OUT_KINDS
    return True


@dataclass(frozen=True)
class IssueText:
    """The issue as agents see it, and how many comments were withheld."""

    markdown: str
    withheld: int


def render_issue(
    number: int,
    *,
    title: str,
    author: str,
    body: str,
    comments: Iterable[CommentLike],
    trust: Trust,
) -> IssueText:
    """The text of `issue.md`: the body and trusted comments, oldest first (TRUST-5)."""
    shown: list[CommentLike] = []
    withheld = 0
    for comment in sorted(comments, key=lambda c: c.id):
        if agent_visible(comment, trust):
            shown.append(comment)
        elif trust.kind(comment) is Kind.UNTRUSTED:
            withheld += 1
    parts = [
        f"# #{number}: {strip_hidden(title).strip()}",
        f"Opened by @{author}.",
        strip_hidden(body).strip() or "(no description)",
    ]
    for comment in shown:
        stamp = comment.created_at.strftime("%Y-%m-%d %H:%M UTC")
        parts.append(f"## Comment by @{comment.author} ({stamp})")
        parts.append(strip_hidden(comment.body).strip() or "(empty)")
    noun = "comment" if withheld == 1 else "comments"
    parts.append(
        f"{withheld} {noun} from users who are not trusted withheld."
        if withheld
        else "No comments withheld."
    )
    return IssueText("\n\n".join(parts) + "\n", withheld)
