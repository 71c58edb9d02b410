"""`issue.md`: what agents read of an issue, cleaned of hidden markup (TRUST-5, 6, 11, 12).

Which version of the body and of each comment it shows is `core/taken.py`'s decision (a
text as the pipeline took it when a later edit is not trusted).

A body or comment longer than its limit (`BODY_LIMIT`, `COMMENT_LIMIT`, in characters)
is cut, with a line saying so: anyone with the right to comment could otherwise fill a
session's context with one 60K-character comment before it read a line of code.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from conveyor.core.held_note import HELD_KIND
from conveyor.core.signatures import parse_marker
from conveyor.core.state_codec import is_state_body
from conveyor.core.taken import BODY, EditedComment, Piece, Taking, comment_key
from conveyor.core.trust import CommentLike, Edits, Kind, Trust

_HIDDEN = re.compile(r"<!--.*?(?:-->|$)", re.DOTALL)
_LINE_BREAKS = {"\u2028": "\n", "\u2029": "\n\n"}
_KEPT_CONTROLS = frozenset("\n\t")
BODY_LIMIT = 16_000
COMMENT_LIMIT = 8_000
# A cut backs off to a line's end when one is this close to the limit, so no line is halved.
_LINE_SLACK = 0.2
# Pipeline comments left out of what agents read: claims and the state.
# The held-edits note quotes text nobody trusted (`core/held_note.py`).
_LEFT_OUT_KINDS = frozenset({"claim", HELD_KIND})


def strip_hidden(text: str) -> str:
    """Drop HTML comments and invisible, bidirectional or control characters.

    Format characters (Unicode category Cf: zero-width spaces and joiners,
    bidi embeddings, overrides and isolates, tag characters, the BOM) can
    hide instructions from a person reading the issue; none is needed by an
    agent, nor is a control character (a NUL, a bell, an escape sequence) but
    the newline and the tab. A carriage return ends a line. Unterminated
    comments are dropped to the end of the text.
    """
    text = _HIDDEN.sub("", text).replace("\r\n", "\n").replace("\r", "\n")
    kept = []
    for char in text:
        if char in _LINE_BREAKS:
            kept.append(_LINE_BREAKS[char])
        elif char in _KEPT_CONTROLS or unicodedata.category(char) not in ("Cf", "Cc"):
            kept.append(char)
    return "".join(kept)


def cut(text: str, limit: int, what: str) -> str:
    """`text` as it is, or its first `limit` characters and a line saying it was cut.

    The cut falls at the end of a line when one ends close enough to the limit.
    """
    if len(text) <= limit:
        return text
    kept = text[:limit]
    line_end = kept.rfind("\n")
    if line_end >= limit * (1 - _LINE_SLACK):
        kept = kept[:line_end]
    kept = kept.rstrip()
    return (
        f"{kept}\n\n[Cut by Conveyor: this {what} has {len(text):,} characters, more than the "
        f"{limit:,} agents are given; the first {len(kept):,} are above.]"
    )


def for_agents(text: str, limit: int, what: str) -> str:
    """A body or comment as agents read it: hidden markup stripped, cut to `limit`."""
    return cut(strip_hidden(text).strip(), limit, what)


def one_line(title: str) -> str:
    """A title as agents read it: stripped as a body is, on one line (its newlines spaces)."""
    return " ".join(strip_hidden(title).split())


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


def pieces_of(
    author: str, body: str, edits: Edits | None, comments: Iterable[EditedComment], trust: Trust
) -> list[Piece]:
    """The texts `core/taken.py` judges: the body and every comment agents may read."""
    pieces = [Piece(BODY, author, body, edits)]
    pieces += [
        Piece(comment_key(c.id), c.author, c.body, c.edits)
        for c in comments
        if agent_visible(c, trust)
    ]
    return pieces


@dataclass(frozen=True)
class IssueText:
    """The issue as agents see it, how many comments were withheld, and how many edits were
    held (shown as first taken, or withheld with the text they changed)."""

    markdown: str
    withheld: int
    held: int = 0


def render_issue(
    number: int,
    *,
    title: str,
    author: str,
    body: str,
    comments: Iterable[CommentLike],
    trust: Trust,
    taking: Taking,
) -> IssueText:
    """The text of `issue.md`: the body and trusted comments, oldest first (TRUST-5), each
    as `taking` says (TRUST-12)."""
    shown: list[tuple[CommentLike, str]] = []
    withheld = 0
    for comment in sorted(comments, key=lambda c: c.id):
        if agent_visible(comment, trust):
            text = taking.shown(comment_key(comment.id), comment.body)
            if text is not None:
                shown.append((comment, text))
        elif trust.kind(comment) is Kind.UNTRUSTED:
            withheld += 1
    taken_body = taking.shown(BODY, body)
    parts = [
        f"# #{number}: {one_line(title)}",
        f"Opened by @{author}.",
        _body_text(taken_body),
    ]
    for comment, text in shown:
        stamp = comment.created_at.strftime("%Y-%m-%d %H:%M UTC")
        parts.append(f"## Comment by @{comment.author} ({stamp})")
        parts.append(for_agents(text, COMMENT_LIMIT, "comment") or "(empty)")
    noun = "comment" if withheld == 1 else "comments"
    parts.append(
        f"{withheld} {noun} from users who are not trusted withheld."
        if withheld
        else "No comments withheld."
    )
    if taking.held:
        parts.append(_held_line(len(taking.held)))
    return IssueText("\n\n".join(parts) + "\n", withheld, len(taking.held))


def _body_text(body: str | None) -> str:
    if body is None:
        return "(The description was last edited by someone who is not trusted; it is withheld.)"
    return for_agents(body, BODY_LIMIT, "issue body") or "(no description)"


def _held_line(count: int) -> str:
    noun = "edit" if count == 1 else "edits"
    return (
        f"{count} {noun} by users who are not trusted withheld: each text above is as Conveyor "
        "first took it."
    )
