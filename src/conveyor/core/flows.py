"""The code and wiki flows of a change, and what they ask of its PR (FLOW-1..4, FLOW-7).

A change has two flows: code (the branch changes files against the base) and wiki
(the wiki branch has commits of its own). `flows_of` names the four cases, and
`pr_flow_action` says what the one shared step does with the PR: stop the issue
(neither), close the PR (wiki only), reopen or create it (code, when the PR is not
open), or go on. Both are pure; the stages call them on the push ops' replies.
"""

from __future__ import annotations

from typing import Literal

from conveyor.core.state import Flows, IssueState

__all__ = [
    "Flows",
    "PrAction",
    "flows_of",
    "guarded_head",
    "has_code",
    "has_wiki",
    "pr_flow_action",
    "pr_open",
    "review_thread",
    "wiki_branch_note",
]

PrAction = Literal["stop", "close", "reopen", "go"]


def flows_of(*, code_changed: bool, wiki_ahead: bool) -> Flows:
    """The change's flows from what the push saw (FLOW-1)."""
    if code_changed and wiki_ahead:
        return "both"
    if code_changed:
        return "code"
    if wiki_ahead:
        return "wiki"
    return "neither"


def pr_flow_action(flows: Flows, *, pr_open: bool) -> PrAction:
    """What the shared step does with the PR for these flows (FLOW-3..5, FLOW-7).

    Neither stops the issue (not-doable); wiki only closes an open PR (nothing to do
    when there is none); a code flow reopens a closed PR or creates a missing one,
    and otherwise goes on.
    """
    match flows:
        case "neither":
            return "stop"
        case "wiki":
            return "close" if pr_open else "go"
        case "code" | "both":
            return "go" if pr_open else "reopen"


def has_code(flows: Flows) -> bool:
    """Whether the code flow governs (a PR, verify and CI)."""
    return flows in ("code", "both")


def has_wiki(flows: Flows) -> bool:
    """Whether the change touches the wiki (wiki-check runs, the wiki is published)."""
    return flows in ("wiki", "both")


def pr_open(state: IssueState) -> bool:
    """Whether the issue has a PR that the pipeline has not closed."""
    return state.pr is not None and not state.pr_closed


def review_thread(state: IssueState, issue: int) -> int:
    """Where review, fix and verdict comments go: the open PR, else the issue itself.

    A wiki-only change has no open PR (FLOW-5, FLOW-10), so its reviews are read
    on the issue.
    """
    if state.pr is not None and not state.pr_closed and has_code(state.flows):
        return state.pr
    return issue


def guarded_head(state: IssueState) -> str | None:
    """The code head the branch guard compares, or None when only the wiki flow governs.

    A wiki-only change pushes no code branch of its own, so there is nothing there
    a person could have moved.
    """
    return state.head_sha if has_code(state.flows) else None


def wiki_branch_note(branch: str) -> str:
    """The signed comment that closes the PR of a wiki-only change (FLOW-5, PR-7)."""
    return (
        "### Wiki only\n\nThe change lives only in the wiki, on the wiki's branch "
        f"`{branch}`, so this PR is closed. Review and checks go on, and the wiki pages are "
        "published when the issue finishes. A later fix that changes code reopens it."
    )
