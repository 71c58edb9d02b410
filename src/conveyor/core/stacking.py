"""Stacked branches on the ops side: the one merged rule, where a sync puts a stacked branch,
and what a stacked issue measures from (STK-2..5, STK-14, STK-15).

An issue stacked on a prerequisite P keeps `stacked_on = {issue: P, head_sha: H}`: its
branch is P's branch at H plus its own commits. A sync replays only those commits
(`git rebase --onto <target> H`): onto P's head while P is open, onto the base once P
merged. Everything here is pure; `conveyor.ops.forge.stack` reads the forge and git for it.
"""

from __future__ import annotations

from dataclasses import dataclass

from conveyor.core.state import IssueState, StackedOn, Stage

BRANCH_PREFIX = "agent/issue-"
# A stacked issue saved at one of these stages is moved back to sync when P moves or
# merges (STK-11); from merge the merge stage's own rebase does it (see docs/stages-merge.md).
RESTACK_FROM = frozenset({Stage.CHECKS, Stage.ACCEPT, Stage.SECURITY})


def prereq_branch(number: int) -> str:
    """The branch of issue `number`, the one its dependents are stacked on."""
    return f"{BRANCH_PREFIX}{number}"


def prereq_merged(*, issue_state: str, state_reason: str | None, pr_merged: bool) -> bool:
    """The one merged rule (STK-5, STK-14): P's PR merged, or P's issue closed as completed.

    P's saved state is never read: it cannot tell a squash-merged PR from an
    issue closed without the work. A closure with no reason counts as completed,
    as GitHub's issues closed before state reasons existed read.
    """
    if pr_merged:
        return True
    return issue_state == "closed" and state_reason in (None, "completed")


@dataclass(frozen=True)
class StackMove:
    """Where a sync puts a stacked branch.

    `onto` is the commit its own commits are replayed onto, `upstream` the commit
    they start after (the saved prerequisite head); `stacked_on` the state's
    value once the rebase is pushed (None: unstacked); `pr_base` the branch the
    PR should then be based on (None: leave it as it is).
    """

    onto: str
    upstream: str
    stacked_on: StackedOn | None
    pr_base: str | None


def restack_plan(
    stacked: StackedOn, *, merged: bool, prereq_head: str | None, base_head: str, base: str
) -> StackMove:
    """The rebase target of a stacked sync (STK-2): P's head while P is open, the base once
    P merged. When P's branch is gone but P did not merge, the branch stays where it is.
    """
    if merged:
        return StackMove(base_head, stacked.head_sha, None, base)
    if prereq_head is None:
        return StackMove(stacked.head_sha, stacked.head_sha, stacked, None)
    moved = StackedOn(issue=stacked.issue, head_sha=prereq_head)
    return StackMove(prereq_head, stacked.head_sha, moved, prereq_branch(stacked.issue))


def stack_base(state: IssueState) -> str | None:
    """What a stacked issue measures its own change from (STK-2, STK-15): the prerequisite
    head its branch is on; None when the issue is not stacked (it measures from the base).
    """
    return state.stacked_on.head_sha if state.stacked_on is not None else None


def can_restack_to_sync(state: IssueState, stage: Stage) -> bool:
    """Whether a sync job may take a stacked issue saved at checks, accept or security (STK-11)."""
    return stage is Stage.SYNC and state.stacked_on is not None and state.stage in RESTACK_FROM


def restack_to_sync(state: IssueState) -> IssueState:
    """The stacked issue moved back to sync: its rebased head is verified, accepted and
    security-reviewed again, so nothing it passed at the old head is kept (STK-11)."""
    return state.model_copy(
        update={"stage": Stage.SYNC, "verified_sha": None, "passed_sha": None, "ci_wait": None}
    )
