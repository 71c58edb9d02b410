"""Trust: which users, comments and saved states the pipeline listens to (TRUST-2..12)."""

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
