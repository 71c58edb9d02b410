"""Typed values of PR reviews and review comments, as the pipeline reads people's feedback."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class Review:
    """A review of a PR: `state` is GitHub's (APPROVED, CHANGES_REQUESTED, COMMENTED,
    DISMISSED, PENDING); `submitted_at` is None while it is pending."""

    id: int
    author: str
    body: str
    state: str
    commit_id: str | None
    submitted_at: datetime | None
    html_url: str


@dataclass(frozen=True)
class ReviewComment:
    """An inline comment of a review: the file, the line on its `side` (RIGHT: the PR's new
    file, LEFT: the old; None for a comment on the whole file) and the comment it answers."""

    id: int
    review_id: int | None
    author: str
    body: str
    path: str
    line: int | None
    in_reply_to: int | None
    commit_id: str
    created_at: datetime
    updated_at: datetime
    html_url: str
    side: str = "RIGHT"
