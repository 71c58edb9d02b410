"""A job's first act from review on: take people's new feedback on the PR (BB-FB).

A review or fix job goes on with the findings in its round; a job at sync, checks,
accept, security or merge saves the issue back at fix and ends (see `core.feedback`).
"""

from __future__ import annotations

from conveyor.core.feedback import SENT_TO_FIX, reads_feedback, route
from conveyor.core.state import IssueState
from conveyor.job.context import JobContext, StageEnd
from conveyor.job.runner_ends import carry_out
from conveyor.ops.forge.pr_feedback import take_pr_feedback
from conveyor.stages.step import SavedAt


def take_feedback_first(ctx: JobContext, state: IssueState) -> IssueState | StageEnd:
    """The state to run the stage on, or the job's end when the feedback sends it to fix."""
    if not reads_feedback(ctx.what.stage):
        return state
    open_only = ctx.what.stage in SENT_TO_FIX
    taken = take_pr_feedback(ctx.who.ops, ctx.what.issue, state, open_only=open_only)
    if taken is None:
        return state
    if not taken.findings:
        return taken.state  # the clock moved on: saved with the job's next change
    for finding in taken.findings:
        title = finding.evidence.split("\n", 1)[0].removesuffix(":")
        ctx.live.events.emit("finding", id=finding.id, severity=finding.severity, title=title)
    stage, routed = route(ctx.what.stage, taken.state)
    if stage is ctx.what.stage:
        return routed
    return carry_out(ctx, SavedAt(stage, routed))
