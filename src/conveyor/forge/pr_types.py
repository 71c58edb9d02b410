"""Typed values of a person's PR as a review of it reads and writes it: the open PRs, a PR's
changed files, who added or removed its labels, and the inline comments of a review."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

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
