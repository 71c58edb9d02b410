"""What a job finds of the work done on its issue before it: the branch's commits, a kept
handoff (TRI-14), and an earlier job of its stage that was interrupted (`job/interrupted.py`)."""

from __future__ import annotations

from pathlib import Path

from conveyor.core.issue_text import one_line
from conveyor.core.state import IssueState
from conveyor.git import GitError
from conveyor.git.runner import git_text
from conveyor.job.context import JobContext
from conveyor.ops.forge.stack import measure_from

HANDOFF_MD = "handoff.md"
SHOWN_COMMITS = 30  # the newest ones; a longer branch says how many are left out


def branch_commits(ctx: JobContext, state: IssueState) -> tuple[str, ...]:
    """The checkout's commits past the issue's base (`<short sha> <subject>`, oldest first),
    subjects on one line with hidden markup stripped: an agent wrote them."""
    repo = ctx.where.git
    try:
        start = measure_from(repo, ctx.what.base, state)
        out = git_text(repo, "log", "--reverse", "--format=%h %s", f"{start}..HEAD", "--")
    except GitError:
        return ()
    lines = [one_line(line) for line in out.splitlines() if line.strip()]
    if len(lines) <= SHOWN_COMMITS:
        return tuple(lines)
    left = len(lines) - SHOWN_COMMITS
    return (f"({left} older commits not shown)", *lines[-SHOWN_COMMITS:])


def handoff_kept(run_dir: Path) -> bool:
    """Whether the run folder holds the last writer's handoff (`handoff.md`)."""
    return (run_dir / HANDOFF_MD).is_file()
