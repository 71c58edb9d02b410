"""Conveyor's own first review, sized: the distiller's brief and size choose the angles, and
the judge (code) merges what they found instead of the aggregator (BB-REV-1, BB-REV-5).

An angle's `blocking` and `major` findings become the issue's blocking findings (the fixer
acts on them), `minor` and `nit` its nits; a finding keeps the first angle that found it
as its lens, which re-reviews the fix.
"""

from __future__ import annotations

from dataclasses import replace

from conveyor.core import replies
from conveyor.core.findings import Raw
from conveyor.core.review_judge import Judged, Spotted, judge
from conveyor.core.review_replies import AngleReply, BriefReply
from conveyor.core.review_size import angles_for, review_size
from conveyor.core.session import SessionStatus
from conveyor.stages.effects import SessionEnded
from conveyor.stages.review.table import Event, Review

BLOCKING = frozenset({"blocking", "major"})


def to_raws(judged: tuple[Judged, ...]) -> tuple[Raw, ...]:
    """The judged list as the review's raw findings, each with its first angle as its lens."""
    return tuple(
        Raw(
            j.angles[0],
            replies.Finding(
                severity="blocking" if j.severity in BLOCKING else "nit",
                file=j.file,
                line=j.line,
                evidence=f"{j.claim.strip()} {j.evidence.strip()}".strip(),
                suggestion=j.suggestion,
            ),
        )
        for j in judged
    )


def briefed(run: Review, ended: SessionEnded, attempts: int) -> tuple[Event, Review]:
    """The distiller's session: the size and its angles, again, or the review failed."""
    if ended.deferred:
        return Event.DEFERRED, replace(run, note=ended.error or "rate limited")
    reply = ended.reply
    if ended.status is SessionStatus.REPLIED and isinstance(reply, BriefReply):
        size = review_size(reply.size, run.changed)
        lenses = angles_for(size, run.inputs.review.angles)
        return Event.BRIEFED, replace(run, brief=reply.brief, lenses=lenses, index=0, failures=0)
    failures = run.failures + 1
    why = f"the distiller's session failed: {ended.error or 'no valid reply'}"
    return (Event.RETRY if failures < attempts else Event.FAILED), replace(
        run, failures=failures, note=why
    )


def looked(run: Review, reply: AngleReply) -> Review:
    """One angle's findings, kept for the judge."""
    found = tuple(Spotted(run.lens, f) for f in reply.findings)
    return replace(run, spotted=run.spotted + found, lens_reply=reply)


def merged_by_judge(run: Review) -> Review:
    """The angles' findings merged by the judge, as the raw findings to number."""
    return replace(run, raw=to_raws(judge(run.spotted)))
