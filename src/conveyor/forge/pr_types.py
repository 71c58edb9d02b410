"""Typed values of a person's PR as a review of it reads and writes it: the open PRs, a PR's
changed files, who added or removed its labels, what people wrote on it (each text with who
last edited it), and the inline comments of a review."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from conveyor.core.trust import Edits

Side = Literal["RIGHT", "LEFT"]


@dataclass(frozen=True)
class OpenPull:
    """An open PR as the review trigger reads it from the list.

    `head_repo` is the repository holding its head branch (`OWNER/NAME`; another one for a
    PR from a fork, None once that repository is deleted).
    """

    number: int
    title: str
    body: str
    author: str
    head_ref: str
    head_sha: str
    head_repo: str | None
    base_ref: str
    draft: bool
    labels: tuple[str, ...]
    created_at: datetime
    updated_at: datetime
    html_url: str


@dataclass(frozen=True)
class PullPage:
    """The open PRs, or `not_modified` when the ETag still matches (then `pulls` is empty)."""

    pulls: tuple[OpenPull, ...]
    etag: str | None
    not_modified: bool


@dataclass(frozen=True)
class PullFile:
    """One file a PR changes; `patch` is None where the forge sends none (binary, too large)."""

    filename: str
    status: str
    additions: int
    deletions: int
    patch: str | None
    previous_filename: str | None = None


@dataclass(frozen=True)
class LabelEvent:
    """A label added to (`labeled`) or removed from (`unlabeled`) an issue or PR, and by whom."""

    action: Literal["labeled", "unlabeled"]
    label: str
    actor: str
    created_at: datetime


@dataclass(frozen=True)
class InlineComment:
    """A review's comment on a line of the diff: `line` on `side` (RIGHT: the new file),
    or the lines `start_line`..`line`."""

    path: str
    line: int
    body: str
    side: Side = "RIGHT"
    start_line: int | None = None


TextKind = Literal["comment", "review", "inline"]


@dataclass(frozen=True)
class PrText:
    """One text written on a PR: a conversation `comment`, a submitted `review`'s body or an
    `inline` review comment (`where` its `path:line`, also apart as `path` and `line`).
    `edits` says who last edited it (GraphQL's `editor`, `lastEditedAt`); None when the read
    could not say. `url` is its page on the forge."""

    id: int
    kind: TextKind
    author: str
    body: str
    created_at: datetime
    updated_at: datetime
    edits: Edits | None
    where: str = ""
    url: str = ""
    path: str = ""
    line: int | None = None


@dataclass(frozen=True)
class PrTexts:
    """A PR's description with its author and edits, and every text written on it, oldest
    first within each kind."""

    number: int
    author: str
    body: str
    edits: Edits | None
    texts: tuple[PrText, ...]
