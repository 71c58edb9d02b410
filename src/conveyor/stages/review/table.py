"""The review stage's table: phases, events, exits and memory (REV-*, FIX-2, FIX-7)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from conveyor.core.findings import CODE_LENSES, Judged, Raw
from conveyor.core.replies import RereviewReply, ReviewReply
from conveyor.core.review_judge import Spotted
from conveyor.core.review_replies import AngleReply
from conveyor.core.state import IssueState, Rereview
from conveyor.stages.step import Inputs


class Phase(StrEnum):
    """Where the review is; phases from TO_CHECKS on are ends."""

    START = "start"
    PREPARE = "prepare-review"
    CHARGE_BRIEF = "charge-brief"
    LAUNCH_BRIEF = "launch-brief"
    CHARGE = "charge-lens"
    LAUNCH = "launch-lens"
    POST_LENS = "post-lens"
    CHARGE_AGG = "charge-aggregator"
    LAUNCH_AGG = "launch-aggregator"
    POST_FINDINGS = "post-findings"
    POST_NITS = "post-nits"
    TO_CHECKS = "clean"
    TO_FIX = "to-fix"
    NOTHING = "nothing-to-review"
    FIX_LOOP = "fix-loop"
    OUT_OF_ROUNDS = "review-rounds"
    FAILED = "failed"
    OVER_BUDGET = "over-budget"
    DEFERRED = "deferred"


class Event(StrEnum):
    """What a result means to the review stage."""

    BEGIN = "begin"
    READY = "ready"
    SIZED = "sized"
    BRIEFED = "briefed"
    SKIPPED = "skipped"
    EMPTY = "empty"
    CHARGED = "charged"
    REFUSED = "refused"
    REPLIED = "replied"
    RETRY = "retry"
    FAILED = "failed"
    DEFERRED = "deferred"
    NEXT_LENS = "next-lens"
    AGGREGATE = "aggregate"
    FINDINGS = "findings"
    NITS = "nits"
    CLEAN = "clean"
    FIX = "fix"
    CAME_BACK = "came-back"
    OUT_OF_ROUNDS = "out-of-rounds"


ENDS = (
    Phase.TO_CHECKS,
    Phase.TO_FIX,
    Phase.NOTHING,
    Phase.FIX_LOOP,
    Phase.OUT_OF_ROUNDS,
    Phase.FAILED,
    Phase.OVER_BUDGET,
    Phase.DEFERRED,
)
VERDICTS: dict[Event, Phase] = {
    Event.CLEAN: Phase.TO_CHECKS,
    Event.FIX: Phase.TO_FIX,
    Event.CAME_BACK: Phase.FIX_LOOP,
    Event.OUT_OF_ROUNDS: Phase.OUT_OF_ROUNDS,
}
# After each lens, the review goes on to the next lens, the aggregator, its comments or its end.
ROUTES: dict[Event, Phase] = {
    Event.NEXT_LENS: Phase.CHARGE,
    Event.AGGREGATE: Phase.CHARGE_AGG,
    Event.FINDINGS: Phase.POST_FINDINGS,
    Event.NITS: Phase.POST_NITS,
    **VERDICTS,
}
EXITS: dict[Phase, dict[Event, Phase]] = {
    Phase.START: {Event.BEGIN: Phase.PREPARE},
    Phase.PREPARE: {
        Event.READY: Phase.CHARGE,
        Event.SIZED: Phase.CHARGE_BRIEF,
        Event.EMPTY: Phase.NOTHING,
    },
    Phase.CHARGE_BRIEF: {Event.CHARGED: Phase.LAUNCH_BRIEF, Event.REFUSED: Phase.OVER_BUDGET},
    Phase.LAUNCH_BRIEF: {
        Event.BRIEFED: Phase.CHARGE,
        Event.RETRY: Phase.CHARGE_BRIEF,
        Event.FAILED: Phase.FAILED,
        Event.DEFERRED: Phase.DEFERRED,
    },
    Phase.CHARGE: {Event.CHARGED: Phase.LAUNCH, Event.REFUSED: Phase.OVER_BUDGET},
    Phase.LAUNCH: {
        Event.REPLIED: Phase.POST_LENS,
        Event.SKIPPED: Phase.POST_LENS,
        Event.RETRY: Phase.CHARGE,
        Event.FAILED: Phase.FAILED,
        Event.DEFERRED: Phase.DEFERRED,
    },
    Phase.POST_LENS: {**ROUTES, Event.FAILED: Phase.FAILED},
    Phase.CHARGE_AGG: {Event.CHARGED: Phase.LAUNCH_AGG, Event.REFUSED: Phase.OVER_BUDGET},
    Phase.LAUNCH_AGG: {Event.FINDINGS: Phase.POST_FINDINGS, Event.DEFERRED: Phase.DEFERRED},
    Phase.POST_FINDINGS: {Event.NITS: Phase.POST_NITS, **VERDICTS},
    Phase.POST_NITS: VERDICTS,
    **{end: {} for end in ENDS},
}


@dataclass(frozen=True)
class Review:
    """The review stage's memory: a first review (three lenses) or a fix's re-review.

    `raw` holds a first review's findings until they are numbered; `nits` the nits
    still to post; `lens_reply` the last lens's reply, for its own PR comment;
    `charge_at` the index of the launching session's charge in `state.charges`. A sized
    first review (`sized`, `[review] sized_first_review`) briefs the change first, its
    lenses are the angles of its size, and the judge (code) merges what they `spotted`;
    `changed` is the diff's added and removed lines, `skipped` the angles that failed.
    """

    inputs: Inputs
    state: IssueState
    phase: Phase = Phase.START
    lenses: tuple[str, ...] = CODE_LENSES
    index: int = 0
    diff_file: str = ""
    head_sha: str = ""
    diff_paths: tuple[str, ...] = ()
    raw: tuple[Raw, ...] = ()
    nits: tuple[Raw, ...] = ()
    lens_reply: ReviewReply | RereviewReply | AngleReply | None = None
    aggregated: bool = False
    numbered: bool = False
    posted_findings: bool = False
    posted_nits: bool = False
    judged: Judged | None = None
    failures: int = 0
    attempt: int = 0
    charge_at: int | None = None
    note: str = ""
    sized: bool = False
    brief: str = ""
    changed: int = 0
    spotted: tuple[Spotted, ...] = ()
    skipped: tuple[str, ...] = ()

    @property
    def rereview(self) -> Rereview | None:
        """The fix waiting for re-review, when this is one (FIX-2)."""
        return self.state.rereview

    @property
    def lens(self) -> str:
        """The lens now reviewing."""
        return self.lenses[min(self.index, len(self.lenses) - 1)]
