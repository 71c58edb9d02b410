"""The review stages' own effects and results: the diff to read and comments on the PR."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PrepareReview:
    """Write the diff to review into a file: from the base, or `base_sha..head` for a fix."""

    name: str
    base_sha: str | None = None


@dataclass(frozen=True)
class PostPrComment:
    """Post a signed comment on the issue's PR as `role` (each reviewer its own, REV-9)."""

    kind: str
    role: str
    text: str


@dataclass(frozen=True)
class ReviewPrepared:
    """The diff file, the head it was taken at, whether it changes nothing, its files, and
    how many lines it adds and removes."""

    diff_file: str
    head_sha: str
    empty: bool
    paths: tuple[str, ...] = ()
    changed: int = 0


ReviewEffect = PrepareReview | PostPrComment
ReviewResult = ReviewPrepared
