"""Stacked branches' effects (STK-2, STK-4, STK-5): read the prerequisite, replay only the
issue's own commits onto their target, and point the PR at the branch it builds on.

The decisions are `conveyor.core.stacking`'s; this module reads the forge and git
for them. The PR's base while stacked is the prerequisite's branch, as GitHub
lets a PR be based on another PR's branch, and it goes back to the base when
the stack ends (GitHub itself retargets it when P merges and P's branch is
deleted; the sync does it too, for a P closed as completed without a merge).
"""

from __future__ import annotations

from dataclasses import dataclass

from conveyor.core.stacking import (
    StackMove,
    prereq_branch,
    prereq_merged,
    restack_plan,
    stack_base,
)
from conveyor.core.state import IssueState, StackedOn
from conveyor.forge.protocol import Forge
from conveyor.git import Repo, is_ancestor, merge_base, rev_parse, try_rev_parse
from conveyor.git.rebase import rebase_onto
from conveyor.ops.local.sync_base import SyncOutcome, base_ref


@dataclass(frozen=True)
class PrereqRead:
    """What the forge says of the prerequisite: merged (the one rule), its branch's head, PR."""

    merged: bool
    head: str | None
    pr: int | None


def read_prereq(forge: Forge, number: int) -> PrereqRead:
    """P's merged verdict (STK-5, STK-14), the head of its branch, and its PR (or None)."""
    issue = forge.get_issue(number)
    branch = forge.get_branch(prereq_branch(number))
    pr = forge.find_pr(prereq_branch(number))
    merged = prereq_merged(
        issue_state=issue.state,
        state_reason=issue.state_reason,
        pr_merged=pr is not None and pr.merged,
    )
    return PrereqRead(merged, branch.sha if branch is not None else None, pr.number if pr else None)


def plan_restack(forge: Forge, repo: Repo, stacked: StackedOn, base: str) -> StackMove:
    """Where the sync puts the stacked branch, from P as the forge and the fetched refs say."""
    read = read_prereq(forge, stacked.issue)
    head = try_rev_parse(repo, f"refs/remotes/origin/{prereq_branch(stacked.issue)}") or read.head
    return restack_plan(
        stacked,
        merged=read.merged,
        prereq_head=head,
        base_head=rev_parse(repo, base_ref(base)),
        base=base,
    )


def replay_own_commits(repo: Repo, move: StackMove) -> SyncOutcome:
    """Rebase only the commits after `move.upstream` onto `move.onto` (STK-4).

    A squash-merged P leaves none of its commits behind. A branch that already
    holds its target is up to date; a conflicted rebase is left for the resolver.
    """
    if is_ancestor(repo, move.onto, "HEAD"):
        return SyncOutcome("up-to-date", rev_parse(repo, "HEAD"))
    upstream = move.upstream
    known = try_rev_parse(repo, f"{upstream}^{{commit}}") is not None
    if not known or not is_ancestor(repo, upstream, "HEAD"):
        upstream = (merge_base(repo, "HEAD", upstream) if known else None) or rev_parse(
            repo, move.onto
        )
    run = rebase_onto(repo, move.onto, upstream)
    if run.finished:
        return SyncOutcome("clean", run.head)
    return SyncOutcome("conflict", run.head, run.conflicts)


def retarget_pr(forge: Forge, number: int | None, base: str | None) -> bool:
    """Base the PR on `base` when it is not already; whether it changed."""
    if number is None or base is None:
        return False
    pr = forge.get_pr(number)
    if pr.state != "open" or pr.base_ref == base:
        return False
    forge.edit_pr(number, base=base)
    return True


def pr_base_for(forge: Forge, stacked: StackedOn | None, base: str) -> str:
    """The base a new PR is opened against: P's branch while the issue is stacked on an open
    P whose branch exists, else the base."""
    if stacked is None:
        return base
    branch = prereq_branch(stacked.issue)
    return branch if forge.get_branch(branch) is not None else base


def measure_from(repo: Repo, base: str, state: IssueState) -> str:
    """The commit the issue's own change starts after: its prerequisite head while stacked,
    else the base's head as last fetched."""
    return stack_base(state) or rev_parse(repo, f"refs/remotes/origin/{base}")
