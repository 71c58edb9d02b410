"""The review of a person's PR as a pure machine: classify each result, act on each phase.

The job (`job/pr_review/`) gathers `PrInputs`, then feeds each effect's result to
`transition` until an end (`PrReviewEnd`). Sessions are the role `review`'s, each with the
model the config gives its part (`brief_model`, `angle_models`, `judge_model`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from conveyor.core.config import Role
from conveyor.core.review_judge import Spotted, judge
from conveyor.core.review_replies import AngleReply, BriefReply, PrReviewReply
from conveyor.core.review_size import angles_for, focus_of, review_size
from conveyor.core.session import SessionStatus
from conveyor.stages import launch
from conveyor.stages.effects import Began, Done, Effect, LaunchSession, SessionEnded
from conveyor.stages.effects_pr_review import (
    NoteOnPr,
    PostPrReview,
    PrHeadRead,
    PrReviewPosted,
    ReadPrHead,
)
from conveyor.stages.pr_review.table import ATTEMPTS, EXITS, Event, Phase, PrInputs, PrRun
from conveyor.stages.pr_review.text import event_of, failure_text, place, review_body
from conveyor.stages.prompts import pr_review as prompts
from conveyor.stages.step import IllegalMove, advance

Outcome = Literal["reviewed", "nothing", "gone", "failed"]
PrResult = Began | SessionEnded | PrHeadRead | PrReviewPosted | Done
PrEffect = Effect | ReadPrHead | PostPrReview | NoteOnPr


@dataclass(frozen=True)
class PrReviewEnd:
    """How the review ended; `run` is its last memory (the judged list, the size, …)."""

    outcome: Outcome
    reason: str
    run: PrRun


@dataclass(frozen=True)
class PrStep:
    """The memory after a transition, and what to do next."""

    memory: PrRun
    action: PrEffect | PrReviewEnd


def _data(run: PrRun) -> prompts.PrPromptData:
    i = run.inputs
    return prompts.PrPromptData(i.number, i.pr_file, i.diff_file, i.base, i.soft, i.hard,
                                i.since_file, run.brief)  # fmt: skip


def _launch(run: PrRun) -> LaunchSession:
    settings, attempt = run.inputs.settings, run.attempt + 1
    earlier = run.inputs.earlier.findings if run.inputs.earlier else ()
    match run.phase:
        case Phase.BRIEF:
            text, kind, model = prompts.brief(_data(run)), "brief", settings.brief_model
            reply = "brief"
        case Phase.ANGLE:
            text = prompts.angle(_data(run), run.angle, focus_of(run.angle), earlier)
            kind, model, reply = f"angle-{run.angle}", settings.angle_models.get(run.angle), "angle"
        case _:
            text = prompts.reviewer(_data(run), run.judged, earlier)
            kind, model, reply = "pr-review", settings.judge_model, "pr_review"
    return replace(launch.reader(kind, Role.REVIEW, text, attempt, model=reply), model=model)


def _post(run: PrRun) -> PostPrReview:
    placed, off = place(run)
    return PostPrReview(review_body(run, off), event_of(run), placed, run.inputs.head_sha)


def _act(run: PrRun) -> PrEffect | PrReviewEnd:
    match run.phase:
        case Phase.BRIEF | Phase.ANGLE | Phase.REVIEWER:
            return _launch(run)
        case Phase.READ_HEAD:
            return ReadPrHead()
        case Phase.POST:
            return _post(run)
        case Phase.TELL:
            return NoteOnPr("pr-review-failed", failure_text(run))
        case Phase.REVIEWED:
            return PrReviewEnd("reviewed", f"{len(run.judged)} finding(s) posted", run)
        case Phase.NOTHING:
            return PrReviewEnd("nothing", "the PR changes nothing from its base", run)
        case Phase.GONE:
            return PrReviewEnd("gone", "the PR was closed or lost its head while reviewed", run)
        case Phase.FAILED | Phase.START:
            return PrReviewEnd("failed", run.note, run)


def _failed(run: PrRun, ended: SessionEnded, who: str) -> tuple[Event, PrRun]:
    """A session that gave no valid reply: again, or failed after `ATTEMPTS`."""
    if ended.deferred:
        return Event.FAILED, replace(
            run, note=f"the {who} was stopped: {ended.error or 'rate limited'}"
        )
    attempt = run.attempt + 1
    why = f"the {who} failed {attempt} time(s): {ended.error or 'no valid reply'}"
    return (Event.RETRY if attempt < ATTEMPTS else Event.FAILED), replace(
        run, attempt=attempt, note=why
    )


def _briefed(run: PrRun, ended: SessionEnded) -> tuple[Event, PrRun]:
    reply = ended.reply
    if ended.status is not SessionStatus.REPLIED or not isinstance(reply, BriefReply):
        return _failed(run, ended, "distiller")
    size = review_size(reply.size, run.inputs.changed)
    angles = angles_for(size, run.inputs.settings.angles)
    return Event.BRIEFED, replace(run, brief=reply.brief, size=size, angles=angles, attempt=0)


def _next_angle(run: PrRun) -> tuple[Event, PrRun]:
    if run.index + 1 < len(run.angles):
        return Event.NEXT_ANGLE, replace(run, index=run.index + 1, attempt=0)
    if len(run.failed_angles) == len(run.angles):
        return Event.FAILED, replace(run, note="every angle failed: " + run.note)
    judged = judge((*run.spotted, *run.inputs.planted))
    run = replace(run, judged=judged, attempt=0)
    return (Event.JUDGED if judged else Event.WORDED), run


def _looked(run: PrRun, ended: SessionEnded) -> tuple[Event, PrRun]:
    reply = ended.reply
    if ended.status is SessionStatus.REPLIED and isinstance(reply, AngleReply):
        found = tuple(Spotted(run.angle, f) for f in reply.findings)
        return _next_angle(replace(run, spotted=run.spotted + found))
    event, run = _failed(run, ended, f"{run.angle} angle")
    if event is Event.RETRY or ended.deferred:
        return event, run
    return _next_angle(replace(run, failed_angles=(*run.failed_angles, run.angle)))


def _worded(run: PrRun, ended: SessionEnded) -> tuple[Event, PrRun]:
    reply = ended.reply
    if ended.status is SessionStatus.REPLIED and isinstance(reply, PrReviewReply):
        return Event.WORDED, replace(run, wording=reply)
    event, run = _failed(run, ended, "reviewer")
    return (Event.RETRY, run) if event is Event.RETRY else (Event.WORDED, run)


def classify(run: PrRun, result: PrResult) -> tuple[Event, PrRun]:
    """The event a result is in the current phase, and the memory it leaves."""
    match result, run.phase:
        case Began(), Phase.START:
            return (Event.EMPTY if run.inputs.changed == 0 else Event.BEGIN), run
        case SessionEnded(), Phase.BRIEF:
            return _briefed(run, result)
        case SessionEnded(), Phase.ANGLE:
            return _looked(run, result)
        case SessionEnded(), Phase.REVIEWER:
            return _worded(run, result)
        case PrHeadRead(open=is_open, head_sha=head), Phase.READ_HEAD:
            moved = replace(run, head_now=head)
            return (Event.OPEN if is_open and head else Event.CLOSED), moved
        case PrReviewPosted(), Phase.POST:
            return Event.POSTED, run
        case Done(), Phase.TELL:
            return Event.TOLD, run
    msg = f"the PR review cannot take {type(result).__name__} in {run.phase.value!r}"
    raise IllegalMove(msg)


def transition(run: PrRun, result: PrResult) -> PrStep:
    """The one transition: look the event up in the table, then act on the new phase."""
    event, run = classify(run, result)
    run = replace(run, phase=advance(EXITS, run.phase, event))
    return PrStep(run, _act(run))


def start(inputs: PrInputs) -> PrStep:
    """The first step of a review."""
    return transition(PrRun(inputs), Began())


__all__ = ["PrInputs", "PrResult", "PrReviewEnd", "PrRun", "PrStep", "start", "transition"]
