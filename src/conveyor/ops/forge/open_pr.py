"""The open-pr ops: the issue branch's start commit, its one draft PR, and readying it (PR-*)."""

from __future__ import annotations

import dataclasses
import re

from conveyor.core.signatures import trailer
from conveyor.forge.errors import DraftsRefused
from conveyor.forge.types import PullRequest
from conveyor.git import commit_tree, rev_parse, tree_of
from conveyor.git.agent_repo import changed
from conveyor.git.runner import Repo
from conveyor.ops.forge.context import OpContext

COORDINATOR = "coordinator"
DRAFT_MARK = "[draft]"
DRAFT_NOTE = (
    "**Draft.** This repository does not take draft pull requests, so Conveyor opened this "
    "one as a normal pull request. It is a draft in all but name: it is not ready for review "
    "or merging until Conveyor marks it ready, which removes this note and the title's "
    f"`{DRAFT_MARK}`."
)


def pr_title(title: str, number: int) -> str:
    """`<issue title> (#N)`: the title always ends with the issue's number (PR conventions)."""
    base = re.sub(rf"\s*\(#{number}\)\s*$", "", title.strip()) or f"Issue {number}"
    return f"{base} (#{number})"


def pr_body(number: int, text: str = "") -> str:
    """A body that starts with `Closes #N`, then `text` (without a second `Closes #N`)."""
    rest = re.sub(rf"^\s*Closes #{number}\b[^\n]*\n?", "", text.strip()).strip()
    return f"Closes #{number}\n\n{rest}\n" if rest else f"Closes #{number}\n"


def draft_title(title: str, number: int) -> str:
    """The title of a PR opened as a normal one where drafts are refused: `[draft] … (#N)`."""
    return f"{DRAFT_MARK} {pr_title(title, number)}"


def draft_body(number: int) -> str:
    """Such a PR's body: `Closes #N`, then the note that it is a draft in all but name."""
    return pr_body(number, DRAFT_NOTE)


def start_message(number: int) -> str:
    """The message of the empty commit that starts an issue branch (PR-11)."""
    return f"Start work on #{number}\n\n{trailer(COORDINATOR)}\n"


def ensure_start_commit(repo: Repo, base_sha: str, number: int) -> str:
    """HEAD of the checkout, with an empty "Start work on #N" commit when it is still the base.

    A branch with commits past its base keeps them; otherwise the empty commit is made
    with plumbing (no hooks run) and the checked-out branch moved onto it.
    """
    head = rev_parse(repo, "HEAD")
    if head != rev_parse(repo, base_sha):
        return head
    sha = commit_tree(repo, tree_of(repo, head), [head], start_message(number))
    changed(repo, "reset", "--soft", sha)
    return sha


def find_or_open_draft(
    ctx: OpContext, number: int, *, branch: str, base: str, title: str, known: int | None = None
) -> PullRequest:
    """The issue's PR: the head branch's existing one (reopened when closed unmerged), or a
    new draft titled `<title> (#N)` whose body starts `Closes #N`. Never two PRs (PR-9).

    `known` is the PR the issue's state names: read by number (one request, where finding
    it by branch is two) and taken when its head is still `branch`, else it is found.
    Where the repository takes no drafts, the PR is opened ready for review but marked a
    draft in its title and body; `finish_pr` removes the marks when it is ready.
    """
    existing = ctx.forge.get_pr(known) if known is not None else None
    if existing is None or existing.head_ref != branch:
        existing = ctx.forge.find_pr(branch)
    if existing is not None:
        if existing.state == "closed" and not existing.merged:
            return ctx.forge.reopen_pr(existing.number)
        return existing
    try:
        return ctx.forge.create_draft_pr(branch, base, pr_title(title, number), pr_body(number))
    except DraftsRefused:
        return ctx.forge.create_pr(branch, base, draft_title(title, number), draft_body(number))


def finish_pr(
    ctx: OpContext,
    pr: int,
    number: int,
    *,
    title: str,
    body: str,
    current: PullRequest | None = None,
) -> PullRequest:
    """Set the PR's title and body (keeping `(#N)` and `Closes #N`) and mark it ready (PR-4).

    `current` is the PR as the caller just read or wrote it (else it is read here).
    """
    if current is None or current.number != pr:
        current = ctx.forge.get_pr(pr)
    want_title, want_body = pr_title(title, number), pr_body(number, body)
    changed = (current.title, current.body) != (want_title, want_body)
    if current.draft:
        # A draft's new text goes with its ready mark: one request (GraphQL), in that order.
        text = (want_title, want_body) if changed else (None, None)
        ctx.forge.mark_pr_ready(pr, *text)
        return dataclasses.replace(current, draft=False, title=want_title, body=want_body)
    if changed:
        current = ctx.forge.edit_pr(pr, title=want_title, body=want_body)
    return current
