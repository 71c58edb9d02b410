"""People's comments that arrive while a job works reach its next session (BB-CMT).

Before each session the job reads the issue's comments again (a 304 when nothing
changed). When someone commented, `issue.md` is written again by the same rule as at
the claim (`ops/forge/taking.py`: trusted comments only, each text as taken unless its
last edit was trusted, hidden markup stripped, the withheld count), and when a trusted
person was among them the session's task says so.
"""

from __future__ import annotations

from dataclasses import replace

from conveyor.core.state import IssueState
from conveyor.core.trust import Kind
from conveyor.forge.job_view import JobForge
from conveyor.job.context import JobContext
from conveyor.ops.forge.taking import take_issue
from conveyor.stages.effects import LaunchSession


def with_fresh_comments(ctx: JobContext, state: IssueState, effect: LaunchSession) -> LaunchSession:
    """The launch, after `issue.md` took in the comments posted since the job last read them;
    the sessions `alongside` it are told the same."""
    line = _fresh_line(ctx, state)
    if line is None:
        return effect
    return replace(_told(effect, line), alongside=tuple(_told(e, line) for e in effect.alongside))


def _told(effect: LaunchSession, line: str) -> LaunchSession:
    return replace(effect, task=f"{effect.task.rstrip()}\n\n{line}\n")


def _fresh_line(ctx: JobContext, state: IssueState) -> str | None:
    """Rewrite `issue.md` when someone commented since; the line that says who, when a
    trusted person did."""
    forge = ctx.who.forge
    if not isinstance(forge, JobForge):
        return None
    new = forge.reread_comments(ctx.what.issue)
    if not new:
        return None
    trust = ctx.who.ops.trust()
    issue = forge.get_issue(ctx.what.issue)
    comments = forge.list_comments(ctx.what.issue).comments
    take_issue(ctx.who.ops, ctx.where.issue_file.parent, issue, comments, state.taken)
    heard = sorted({c.author for c in new if trust.kind(c) is Kind.TRUSTED}, key=str.casefold)
    if not heard:
        return None
    who = " and ".join(f"@{login}" for login in heard)
    return (
        f"New since this job began: {who} commented on the issue. `{ctx.where.issue_file}` "
        "ends with what they wrote; take it into account."
    )
