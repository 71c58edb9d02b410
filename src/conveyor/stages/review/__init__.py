"""The review machine: three reader lenses, an aggregator, or the re-review of a fix (REV-*)."""

from __future__ import annotations

from dataclasses import replace

from conveyor.core.config import Role
from conveyor.core.findings import (
    Raw,
    Verdict,
    add_findings,
    apply_rereview,
    from_aggregate,
    judge,
    nits,
    number_raw,
)
from conveyor.core.replies import AggregateReply, RereviewReply, ReviewReply
from conveyor.core.review_replies import AngleReply
from conveyor.core.session import SessionStatus
from conveyor.core.state import IssueState, Stage
from conveyor.stages.effects import Began, Charged, Done, Refused, Result, SessionEnded
from conveyor.stages.effects_review import ReviewPrepared
from conveyor.stages.machine import Machine, cannot_take, charge
from conveyor.stages.review.acts import TABLE
from conveyor.stages.review.sized import briefed, looked, merged_by_judge
from conveyor.stages.review.table import EXITS, Event, Phase, Review
from conveyor.stages.stage_def import JobRole, StageDef
from conveyor.stages.step import Inputs, with_usage

LENS_ATTEMPTS = 2
AGGREGATE_FROM = 2  # blocking findings it takes to call the aggregator
EVENTS = {
    Verdict.CLEAN: Event.CLEAN,
    Verdict.FIX: Event.FIX,
    Verdict.CAME_BACK: Event.CAME_BACK,
    Verdict.OUT_OF_ROUNDS: Event.OUT_OF_ROUNDS,
}


def _number(run: Review, reply: AggregateReply | None) -> Review:
    """Number the first review's blocking findings (the aggregate's, or the raw ones)."""
    earlier = run.state.findings
    made = (
        number_raw(earlier, run.raw) if reply is None else from_aggregate(earlier, reply, run.raw)
    )
    return replace(run, state=add_findings(run.state, made), nits=nits(run.raw), numbered=True)


def _route(run: Review) -> tuple[Event, Review]:
    """After a lens or a comment: the next lens, the aggregator, the comments, or the verdict."""
    if run.index + 1 < len(run.lenses):
        return Event.NEXT_LENS, replace(run, index=run.index + 1, failures=0)
    if run.rereview is None and not run.numbered:
        if run.sized:
            if len(run.skipped) == len(run.lenses):
                return Event.FAILED, replace(run, note=f"every angle failed: {run.note}")
            run = merged_by_judge(run)  # the judge, not the aggregator, merges the angles
        blocking = [r for r in run.raw if r.finding.severity == "blocking"]
        if len(blocking) >= AGGREGATE_FROM and not run.aggregated and not run.sized:
            return Event.AGGREGATE, run
        run = _number(run, None)
    limit = run.inputs.limits.max_fix_rounds
    judged = run.judged or judge(run.state, limit)
    run = replace(run, judged=judged)
    if run.state.open_blocking() and not run.posted_findings:
        return Event.FINDINGS, replace(run, posted_findings=True)
    if run.nits and not run.posted_nits:
        return Event.NITS, replace(run, posted_nits=True)
    return EVENTS[judged.verdict], run


def _lens_replied(run: Review, ended: SessionEnded) -> tuple[Event, Review] | None:
    lens = run.lens
    match ended.reply:
        case AngleReply() as reply if run.sized and run.rereview is None:
            return Event.REPLIED, looked(run, reply)
        case ReviewReply() as reply if run.rereview is None:
            raws = tuple(Raw(lens, f) for f in reply.findings)
            return Event.REPLIED, replace(run, raw=run.raw + raws, lens_reply=reply)
        case RereviewReply() as reply if run.rereview is not None:
            state, new_nits = apply_rereview(run.state, lens, reply, run.diff_paths)
            return Event.REPLIED, replace(
                run, state=state, nits=run.nits + new_nits, lens_reply=reply
            )
    return None


def _session(run: Review, ended: SessionEnded) -> tuple[Event, Review]:
    if ended.deferred:
        return Event.DEFERRED, replace(run, note=ended.error or "rate limited")
    if run.phase is Phase.LAUNCH_BRIEF:
        return briefed(run, ended, LENS_ATTEMPTS)
    if run.phase is Phase.LAUNCH_AGG:
        reply = ended.reply if isinstance(ended.reply, AggregateReply) else None
        return Event.FINDINGS, replace(_number(run, reply), aggregated=True, posted_findings=True)
    if ended.status is SessionStatus.REPLIED:
        done = _lens_replied(run, ended)
        if done is not None:
            return done
    failures = run.failures + 1
    why = f"the {run.lens} reviewer's session failed: {ended.error or 'no valid reply'}"
    run = replace(run, failures=failures, note=why)
    if failures >= LENS_ATTEMPTS and run.sized and run.rereview is None:
        # BB-REV-5: a failing angle is named and the others are still judged.
        return Event.SKIPPED, replace(run, skipped=(*run.skipped, run.lens), lens_reply=None)
    return (Event.RETRY if failures < LENS_ATTEMPTS else Event.FAILED), run


def classify(run: Review, result: Result) -> tuple[Event, Review]:
    """The event a result is in the current phase, and the memory it leaves."""
    match result:
        case Began():
            return Event.BEGIN, run
        case ReviewPrepared(diff_file=diff_file, head_sha=head, empty=empty, paths=paths):
            run = replace(run, diff_file=diff_file, head_sha=head, diff_paths=paths,
                          changed=result.changed)  # fmt: skip
            if empty and run.rereview is None:
                return Event.EMPTY, run
            return (Event.SIZED if run.sized and run.rereview is None else Event.READY), run
        case Charged(at=at):
            event, run = charge(run, result, Event)
            return event, replace(run, charge_at=at)
        case Refused():
            return charge(run, result, Event)
        case SessionEnded():
            state = with_usage(run.state, result, run.charge_at)
            return _session(replace(run, state=state, charge_at=None), result)
        case Done():
            return _route(run)
    raise cannot_take("the review stage", result, run.phase)


def _memory(inputs: Inputs, state: IssueState) -> Review:
    """The review's memory at the start: a re-review runs only the lenses the fix job named;
    a sized first review learns its angles from the distiller."""
    lenses = state.rereview.lenses if state.rereview and state.rereview.lenses else None
    if lenses is None and state.rereview is None and inputs.review.sized_first_review:
        return Review(inputs, state, lenses=("correctness",), sized=True)
    return Review(inputs, state) if lenses is None else Review(inputs, state, lenses=lenses)


MACHINE = Machine(TABLE, classify, _memory)
transition = MACHINE.transition
start = MACHINE.start
STAGE = StageDef(Stage.REVIEW, MACHINE, JobRole.READER, Role.REVIEW, restores_spec=True)

__all__ = [
    "EXITS",
    "MACHINE",
    "STAGE",
    "TABLE",
    "Event",
    "Phase",
    "Review",
    "classify",
    "start",
    "transition",
]
