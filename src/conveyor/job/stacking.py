"""A job's side of stacking: its first job on the prerequisite's branch (`--stack-on P`)
and where its checkout starts (STK-1, STK-15); what its change is measured from is
`conveyor.ops.forge.stack.measure_from` (STK-2).
"""

from __future__ import annotations

from conveyor.core.stacking import prereq_branch
from conveyor.core.state import IssueState, StackedOn
from conveyor.forge.protocol import Forge
from conveyor.git import Repo, merge_base, try_rev_parse
from conveyor.ops.forge.context import OpContext
from conveyor.ops.forge.state_store import fetch_state, save_state, state_of


def has_prereq_branch(forge: Forge, prereq: int) -> bool:
    """Whether P has a branch to build on (`--stack-on P` is refused, changing nothing, if not)."""
    return forge.get_branch(prereq_branch(prereq)) is not None


def _tracking(prereq: int) -> str:
    return f"refs/remotes/origin/{prereq_branch(prereq)}"


def checkout_start(state: IssueState, stack_on: int | None) -> str | None:
    """Where the issue's branch starts when the remote has none yet: the prerequisite head
    it is stacked on, or (its first stacked job) P's branch as the cache just fetched it."""
    if state.stacked_on is not None:
        return state.stacked_on.head_sha
    return _tracking(stack_on) if stack_on is not None else None


def record_stack(
    ops: OpContext, number: int, state: IssueState, repo: Repo, *, prereq: int, base: str
) -> IssueState:
    """Save `stacked_on` once the checkout exists (one write, on the first stacked job).

    A branch made now starts at P's head. A branch the issue already had stays
    where it is and is stacked from where it left the base: its next sync
    replays its own commits onto P's head (with the resolver on a conflict).
    A P whose branch is gone by now is not stacked on.
    """
    tip = try_rev_parse(repo, _tracking(prereq))
    if tip is None:
        return state
    head = tip
    if try_rev_parse(repo, f"refs/remotes/origin/agent/issue-{number}") is not None:
        head = merge_base(repo, "HEAD", f"refs/remotes/origin/{base}") or tip
    stacked = state.model_copy(update={"stacked_on": StackedOn(issue=prereq, head_sha=head)})
    lookup = fetch_state(ops, number)
    state_of(lookup)
    save_state(ops, number, stacked, lookup)
    return stacked
