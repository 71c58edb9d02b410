"""The review of a person's PR: its phases, events, exits, inputs and memory (BB-REV-1..5).

A distiller briefs and sizes the change, one read-only session per angle of that size
looks from its angle, the judge (pure) merges their findings, a reviewer words them, and
the job posts one review after reading where the PR's head is now.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from conveyor.core.config import ReviewSettings
from conveyor.core.diff_lines import FileDiff, Span
from conveyor.core.pr_review_record import Recorded
from conveyor.core.review_judge import Judged, Spotted
from conveyor.core.review_replies import PrReviewReply, Size

ATTEMPTS = 2  # sessions of one kind before it counts as failed


class Phase(StrEnum):
    """Where the review is; the last four are its ends."""

    START = "start"
    BRIEF = "brief"
    ANGLE = "angle"
    REVIEWER = "reviewer"
    READ_HEAD = "read-head"
    POST = "post"
    TELL = "tell-failure"
    REVIEWED = "reviewed"
    NOTHING = "nothing-to-review"
    GONE = "head-gone"
    FAILED = "failed"


class Event(StrEnum):
    """What a result means to the review."""

    BEGIN = "begin"
    EMPTY = "empty"
    BRIEFED = "briefed"
    RETRY = "retry"
    NEXT_ANGLE = "next-angle"
    JUDGED = "judged"
    WORDED = "worded"
    OPEN = "open"
    CLOSED = "closed"
    POSTED = "posted"
    FAILED = "failed"
    TOLD = "told"


ENDS = (Phase.REVIEWED, Phase.NOTHING, Phase.GONE, Phase.FAILED)
EXITS: dict[Phase, dict[Event, Phase]] = {
    Phase.START: {Event.BEGIN: Phase.BRIEF, Event.EMPTY: Phase.NOTHING},
    Phase.BRIEF: {Event.BRIEFED: Phase.ANGLE, Event.RETRY: Phase.BRIEF, Event.FAILED: Phase.TELL},
    Phase.ANGLE: {
        Event.RETRY: Phase.ANGLE,
        Event.NEXT_ANGLE: Phase.ANGLE,
        Event.JUDGED: Phase.REVIEWER,
        Event.WORDED: Phase.READ_HEAD,
        Event.FAILED: Phase.TELL,
    },
    Phase.REVIEWER: {Event.RETRY: Phase.REVIEWER, Event.WORDED: Phase.READ_HEAD},
    Phase.READ_HEAD: {Event.OPEN: Phase.POST, Event.CLOSED: Phase.GONE},
    Phase.POST: {Event.POSTED: Phase.REVIEWED},
    Phase.TELL: {Event.TOLD: Phase.FAILED},
    **{end: {} for end in ENDS},
}


@dataclass(frozen=True)
class PrInputs:
    """The facts the review decides from, gathered by the job (no I/O here).

    `files` is the whole diff read as data (for placing comments); `diff_file` the diff the
    sessions read (cut to `max_diff_lines`, `cut_note` saying where); `check_files` the
    changed files the checks read; `planted` the findings code made (silenced checks);
    `earlier` the last review's record and `touched` what the push since changed of it.
    """

    number: int
    title: str
    head_sha: str
    base: str
    pr_file: str
    diff_file: str
    files: tuple[FileDiff, ...]
    changed: int
    settings: ReviewSettings
    soft: int
    hard: int
    request_changes: bool = False
    cut_note: str | None = None
    check_files: tuple[str, ...] = ()
    planted: tuple[Spotted, ...] = ()
    since_file: str | None = None
    earlier: Recorded | None = None
    touched: Mapping[str, tuple[Span, ...]] = field(default_factory=dict)
    withheld: int = 0
    held: tuple[str, ...] = ()  # trusted people's texts withheld for an untrusted edit
    rewritten: bool = False  # the branch was rewritten since the last review


@dataclass(frozen=True)
class PrRun:
    """The review's memory: the brief and size, the angle now looking, what the angles found
    and which failed, the judged list, the reviewer's words and the PR's head at posting."""

    inputs: PrInputs
    phase: Phase = Phase.START
    attempt: int = 0
    brief: str = ""
    size: Size | None = None
    angles: tuple[str, ...] = ()
    index: int = 0
    spotted: tuple[Spotted, ...] = ()
    failed_angles: tuple[str, ...] = ()
    judged: tuple[Judged, ...] = ()
    wording: PrReviewReply | None = None
    head_now: str | None = None
    note: str = ""

    @property
    def angle(self) -> str:
        """The angle now looking."""
        return self.angles[min(self.index, len(self.angles) - 1)] if self.angles else ""
