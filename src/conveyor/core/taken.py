"""The issue text agents read, fixed when the pipeline took it (TRUST-12).

The first time a trusted body or comment goes into `issue.md`, the hash of its text is
recorded in the issue's state (`IssueState.taken`, on the forge). Later reads take the
text again only when it is unchanged, or when its last edit was a trusted person's
(`Trust.text`). An edit by anyone else, or one whose editor the read did not say, is
*held*: agents read the text as it was taken (the kept copy, checked against the recorded
hash, so neither a stale local file nor the forge's history can slip in another text) and
a person is shown what changed and who changed it. With no kept copy to show, the text is
withheld whole. A text whose author is not trusted is not taken at all (TRUST-6).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from conveyor.core.trust import CommentLike, Edits, TextTrust, Trust

BODY = "body"
HASH_CHARS = 32  # 128 bits of SHA-256: no one finds a second text with a recorded hash


def comment_key(comment_id: int) -> str:
    """The key of a comment's text in `IssueState.taken`."""
    return f"comment:{comment_id}"


def text_hash(text: str) -> str:
    """The hash recorded for a text taken."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:HASH_CHARS]


class EditedComment(CommentLike, Protocol):
    """A comment with what the read said of its edits (the forge's `Comment` fits)."""

    @property
    def edits(self) -> Edits | None: ...


@dataclass(frozen=True)
class Piece:
    """One body or comment as read: its key, author, live text and what the read said of
    its edits (None: nothing)."""

    key: str
    author: str
    text: str
    edits: Edits | None


@dataclass(frozen=True)
class Held:
    """An edit not taken: the live text, who last edited it and when (None: the read did
    not say), and the text kept in its place (None: no copy, so the text is withheld)."""

    key: str
    author: str
    live: str
    by: str | None
    at: datetime | None
    kept: str | None


@dataclass(frozen=True)
class Taking:
    """What agents read of each text (`texts`, by key; a key left out is not shown), the
    edits held, and the hashes to record in the state."""

    texts: Mapping[str, str]
    held: tuple[Held, ...]
    hashes: Mapping[str, str]

    def shown(self, key: str, live: str) -> str | None:
        """The text agents read for `key` (None when withheld); `live` when not judged."""
        if key in self.texts:
            return self.texts[key]
        return None if any(h.key == key for h in self.held) else live


def _taken_live(piece: Piece, trust: Trust, recorded: Mapping[str, str]) -> bool | None:
    """True: the live text is taken; False: it is held; None: its author is not trusted."""
    verdict = trust.text(piece.author, piece.edits)
    if verdict is TextTrust.UNTRUSTED_AUTHOR:
        return None
    return verdict is TextTrust.TRUSTED or recorded.get(piece.key) == text_hash(piece.text)


def needs_kept(pieces: Iterable[Piece], trust: Trust, recorded: Mapping[str, str]) -> list[str]:
    """The keys held that have a recorded hash: the ones whose kept copy to look up."""
    return [p.key for p in pieces if _taken_live(p, trust, recorded) is False and p.key in recorded]


def take(
    pieces: Iterable[Piece],
    trust: Trust,
    recorded: Mapping[str, str],
    kept: Mapping[str, str],
) -> Taking:
    """Which text agents read of each piece, given the hashes recorded when it was taken and
    the copies found for the held ones (`kept`, checked against the hashes here)."""
    texts: dict[str, str] = {}
    held: list[Held] = []
    hashes: dict[str, str] = {}
    for piece in pieces:
        live = _taken_live(piece, trust, recorded)
        if live is None:
            continue
        if live:
            texts[piece.key] = piece.text
            hashes[piece.key] = text_hash(piece.text)
            continue
        last = piece.edits.last if piece.edits is not None else None
        copy = kept.get(piece.key)
        good = copy is not None and recorded.get(piece.key) == text_hash(copy)
        if copy is not None and good:
            texts[piece.key] = copy
        if piece.key in recorded:
            hashes[piece.key] = recorded[piece.key]
        by, at = (last.by, last.at) if last is not None else (None, None)
        held.append(Held(piece.key, piece.author, piece.text, by, at, copy if good else None))
    return Taking(texts, tuple(held), hashes)
