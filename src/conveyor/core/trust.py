"""Trust: which users, comments and saved states the pipeline listens to (TRUST-2..12).

A body or comment is trusted by who wrote it *and* by who last edited it (TRUST-12): on
GitHub anyone with write access may edit anyone's issue or comment, so a collaborator
who is not in `allowed_users` could otherwise put words in a trusted person's mouth.
`Trust.text` is the one rule; the issue text agents read (`core/taken.py`), the state
comment and the reviews of people's PRs use it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Protocol

from conveyor.core.signatures import has_marker


class CommentLike(Protocol):
    """What the rules read of a comment (the forge's `Comment` fits)."""

    @property
    def id(self) -> int: ...
    @property
    def author(self) -> str: ...
    @property
    def body(self) -> str: ...
    @property
    def created_at(self) -> datetime: ...
    @property
    def updated_at(self) -> datetime: ...


@dataclass(frozen=True)
class LastEdit:
    """Who last edited a body or comment, and when (GraphQL's `editor` and `lastEditedAt`)."""

    by: str
    at: datetime


@dataclass(frozen=True)
class Edits:
    """What the forge said of a text's edits: `last` is None when it was never edited.

    A value read without it (REST has no editor field) carries `edits=None` instead, and
    the rules treat an edit they cannot see as one they cannot trust.
    """

    last: LastEdit | None = None


NEVER_EDITED = Edits()


class TextTrust(StrEnum):
    """Whether a body or comment may be read as its trusted author's words."""

    TRUSTED = "trusted"
    UNTRUSTED_AUTHOR = "untrusted-author"
    UNTRUSTED_EDIT = "untrusted-edit"  # a trusted author's text, last edited by someone else
    UNKNOWN_EDIT = "unknown-edit"  # a trusted author's text read without its edit facts


class Kind(StrEnum):
    """Who a comment counts as."""

    PIPELINE = "pipeline"
    TRUSTED = "trusted"
    UNTRUSTED = "untrusted"


def same_login(a: str, b: str) -> bool:
    """Logins compare without case, as on GitHub."""
    return a.casefold() == b.casefold()


@dataclass(frozen=True)
class Trust:
    """The pipeline's account and the users it trusts right now."""

    account: str
    trusted: frozenset[str]

    def user(self, login: str) -> bool:
        """The account is always trusted (TRUST-8); others must be in `trusted` (TRUST-2)."""
        return same_login(login, self.account) or login.casefold() in self.trusted

    def pipeline(self, comment: CommentLike) -> bool:
        """The pipeline's own comment: the marker *and* the account as author (TRUST-9)."""
        return same_login(comment.author, self.account) and has_marker(comment.body)

    def kind(self, comment: CommentLike) -> Kind:
        """Whether a comment is the pipeline's, a trusted person's or untrusted."""
        if self.pipeline(comment):
            return Kind.PIPELINE
        return Kind.TRUSTED if self.user(comment.author) else Kind.UNTRUSTED

    def text(self, author: str, edits: Edits | None) -> TextTrust:
        """A text is trusted when its author is and its last editor, if any, is too.

        `edits` None means the read did not say (REST): that is `UNKNOWN_EDIT`, which
        callers treat as not trusted unless they know the text otherwise.
        """
        if not self.user(author):
            return TextTrust.UNTRUSTED_AUTHOR
        if edits is None:
            return TextTrust.UNKNOWN_EDIT
        if edits.last is None or self.user(edits.last.by):
            return TextTrust.TRUSTED
        return TextTrust.UNTRUSTED_EDIT


def build_trust(
    account: str, allowed_users: Iterable[str], collaborators: Mapping[str, bool]
) -> Trust:
    """Trusted: listed in allowed_users and still a collaborator (TRUST-2).

    `collaborators` holds the forge's answer for each allowed user; a user
    with no answer is not trusted.
    """
    trusted = frozenset(
        login.casefold() for login in allowed_users if collaborators.get(login, False)
    )
    return Trust(account=account, trusted=trusted)
