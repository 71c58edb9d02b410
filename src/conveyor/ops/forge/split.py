"""The split and close-parent ops: sub-issues with their order, linked to the parent (GH-25)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from conveyor.core.labels import Status, status_label
from conveyor.core.state import IssueState
from conveyor.forge.types import Issue
from conveyor.ops.forge.claim_comments import close_live_claims
from conveyor.ops.forge.context import OpContext
from conveyor.ops.forge.labels import set_agent_label
from conveyor.ops.forge.post import post_comment
from conveyor.ops.forge.state_store import fetch_state, save_state, state_of

SPLIT_KIND = "split"
CLOSE_KIND = "close-parent"


@dataclass(frozen=True)
class Part:
    """One sub-issue to open; `after` holds indexes of earlier parts it waits for."""

    title: str
    body: str
    after: tuple[int, ...] = ()


def part_marker(parent: int, index: int) -> str:
    """The hidden marker that lets a re-run find a sub-issue it already opened."""
    return f"<!-- conveyor:sub-issue parent={parent} part={index} -->"


def part_body(part: Part, parent: int, index: int, after: Sequence[int]) -> str:
    """A sub-issue's body: its text, the "After #a merges." lines, the parent, the marker."""
    lines = [part.body.strip(), ""]
    lines += [f"After #{n} merges." for n in after]
    lines += [f"Part {index + 1} of #{parent}.", part_marker(parent, index)]
    return "\n".join(lines) + "\n"


def _find_part(ctx: OpContext, parent: int, index: int, known: Sequence[Issue]) -> Issue | None:
    marker = part_marker(parent, index)
    for issue in known:
        if marker in issue.body and issue.author.casefold() == ctx.account.casefold():
            return issue
    return None


def split(ctx: OpContext, number: int, parts: Sequence[Part], *, now: datetime) -> tuple[int, ...]:
    """Open the sub-issues (each with its own state), link them, label the parent split."""
    if len(parts) < 2:
        msg = f"split #{number}: expected at least 2 parts, got {len(parts)}"
        raise ValueError(msg)
    for i, part in enumerate(parts):
        if any(not 0 <= a < i for a in part.after):
            msg = f"split #{number}: part {i} may only wait for earlier parts, got {part.after}"
            raise ValueError(msg)
    parent_lookup = fetch_state(ctx, number)
    parent_state = state_of(parent_lookup)
    linked = ctx.forge.list_sub_issues(number)
    known = (*linked, *ctx.forge.list_open_issues().issues)
    numbers: list[int] = []
    for i, part in enumerate(parts):
        after = tuple(numbers[a] for a in part.after)
        child = _find_part(ctx, number, i, known)
        if child is None:
            child = ctx.forge.create_issue(part.title, part_body(part, number, i, after))
        numbers.append(child.number)
        if all(s.number != child.number for s in linked):
            ctx.forge.add_sub_issue(number, child.number)
        child_state = IssueState(parent=number, depth=parent_state.depth + 1, after=after)
        child_lookup = fetch_state(ctx, child.number)
        if child_lookup.comment_id is None:
            save_state(ctx, child.number, child_state, child_lookup)
    listing = "\n".join(f"- #{n}: {p.title}" for n, p in zip(numbers, parts, strict=True))
    post_comment(ctx, number, SPLIT_KIND, f"### Split into sub-issues\n\n{listing}")
    issue = ctx.forge.get_issue(number)
    set_agent_label(ctx, number, issue.labels, status_label(Status.SPLIT))
    save_state(ctx, number, parent_state.model_copy(update={"lease": None}), parent_lookup)
    close_live_claims(ctx, number, now, "the issue was split into sub-issues.")
    return tuple(numbers)


def close_parent(ctx: OpContext, number: int, *, now: datetime) -> bool:
    """Close a split parent once every sub-issue is closed; False while any is open."""
    issue = ctx.forge.get_issue(number)
    subs = ctx.forge.list_sub_issues(number)
    if not subs or any(s.state == "open" for s in subs):
        return False
    if issue.state == "closed":
        return True
    listing = ", ".join(f"#{s.number}" for s in subs)
    post_comment(ctx, number, CLOSE_KIND, f"Every sub-issue is closed ({listing}); closing.")
    close_live_claims(ctx, number, now, "every sub-issue is closed.")
    ctx.forge.close_issue(number, "completed")
    return True
