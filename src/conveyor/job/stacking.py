"""A job's side of stacking: its first job on the prerequisite's branch (`--stack-on P`), where
its checkout starts, and the commit its own change is measured from (STK-1, STK-2, STK-15).
"""

from __future__ import annotations

from conveyor.core.stacking import prereq_branch, stack_base
from conveyor.core.state import IssueState, StackedOn
from conveyor.forge.protocol import Forge
from conveyor.git import Repo, merge_base, rev_parse, try_rev_parse
from conveyor.job.context import JobContext
from conveyor.ops.context import OpContext
from conveyor.ops.state_store import fetch_state, save_state, state_of


def prereq_tip(forge: Forge, prereq: int) -> StackedOn | None:
    """P's branch head as the forge has it now: what `--stack-on P` builds on (None: no branch)."""
    branch = forge.get_branch(prereq_branch(prereq))
    return StackedOn(issue=prereq, head_sha=branch.sha) if branch is not None else None


def checkout_start(state: IssueState, stacking: StackedOn | None) -> str | None:
    """Where the issue's branch starts when the remote has none yet: the prerequisite head."""
    if state.stacked_on is not None:
        return state.stacked_on.head_sha
    return stacking.head_sha if stacking is not None else None


def record_stack(
    ops: OpContext, number: int, state: IssueState, repo: Repo, *, stacking: StackedOn, base: str
) -> IssueState:
    """Save `stacked_on` once the checkout exists (one write, on the first stacked job).

    A branch made now starts at P's head. A branch the issue already had stays
    where it is and is stacked from where it left the base: its next sync
    replays its own commits onto P's head (with the resolver on a conflict).
    """
    own = try_rev_parse(repo, f"refs/remotes/origin/agent/issue-{number}")
    head = stacking.head_sha
    if own is not None:
        head = merge_base(repo, "HEAD", f"refs/remotes/origin/{base}") or head
    stacked = state.model_copy(
        update={"stacked_on": StackedOn(issue=stacking.issue, head_sha=head)}
    )
    lookup = fetch_state(ops, number)
    state_of(lookup)
    save_state(ops, number, stacked, lookup)
    return stacked


def measure_from(ctx: JobContext, state: IssueState) -> str:
    """The commit the issue's own change starts after: its prerequisite head while stacked,
    else the base's head as last fetched."""
    return stack_base(state) or rev_parse(ctx.git, f"refs/remotes/origin/{ctx.base}")
