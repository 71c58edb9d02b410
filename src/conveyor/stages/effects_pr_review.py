"""What a review of a person's PR asks the job to do besides sessions, and what comes back."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class ReadPrHead:
    """Read the PR now: whether it is still open and where its head is."""


@dataclass(frozen=True)
class PrHeadRead:
    """The PR as read: open or not, and its head (None when it has none any more)."""

    open: bool
    head_sha: str | None


@dataclass(frozen=True)
class Placed:
    """An inline comment at a line of the diff: `line` on `side`, or `start_line`..`line`."""

    path: str
    line: int
    body: str
    side: Literal["RIGHT", "LEFT"] = "RIGHT"
    start_line: int | None = None


@dataclass(frozen=True)
class PostPrReview:
    """Post one review at commit `commit_id`: the body (signed by the job), the event and
    the inline comments; where the forge refuses the comments' places, the job posts the
    review again with them in the body, so nothing is lost."""

    body: str
    event: Literal["COMMENT", "REQUEST_CHANGES"]
    comments: tuple[Placed, ...]
    commit_id: str


@dataclass(frozen=True)
class PrReviewPosted:
    """The review is on the PR; `inline` counts the comments that went on lines."""

    review_id: int
    url: str
    inline: int


@dataclass(frozen=True)
class NoteOnPr:
    """Post one signed comment on the PR (a review that could not run says why)."""

    kind: str
    text: str
