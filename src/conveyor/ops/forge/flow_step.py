"""The one shared step that carries out what the flows ask of the PR (FLOW-3, FLOW-5, FLOW-7).

open-pr, fix, the check fixer and sync each end a push with it: `close` closes the
open PR of a wiki-only change with a signed comment naming the wiki branch; `reopen`
reopens the closed PR, or opens one when there is none, and readies it; `go` readies
the PR, setting the implementer's title and body when given. `stop` is the stage's
own end (not-doable) and changes nothing here.
"""

from __future__ import annotations

from dataclasses import dataclass

from conveyor.core.flows import PrAction, wiki_branch_note
from conveyor.core.signatures import Signature
from conveyor.ops.forge.context import OpContext
from conveyor.ops.forge.open_pr import find_or_open_draft, finish_pr
from conveyor.ops.forge.post import post_comment


@dataclass(frozen=True)
class Settled:
    """The PR after the step: its number (None: there is none) and whether it is open."""

    number: int | None
    open: bool


def settle_pr(
    ctx: OpContext,
    issue: int,
    action: PrAction,
    *,
    pr: int | None,
    title: str | None,
    body: str | None,
    wiki_branch: str,
    signature: Signature,
    base: str | None = None,
) -> Settled:
    """Close, reopen (or open) and ready, or ready the issue's PR, as `action` says.

    A PR opened or reopened here is based on `base` (a stacked issue's: its
    prerequisite's branch), else on the configured base: a PR closed while its
    prerequisite merged is reopened onto the base.
    """
    branch, base = f"agent/issue-{issue}", base or ctx.config.base
    match action:
        case "stop":
            return Settled(pr, pr is not None)
        case "close":
            found = ctx.forge.get_pr(pr) if pr is not None else ctx.forge.find_pr(branch)
            if found is None:
                return Settled(None, False)
            if found.state == "open":
                post_comment(
                    ctx, found.number, "wiki-only", wiki_branch_note(wiki_branch), signature
                )
                ctx.forge.close_pr(found.number)
            return Settled(found.number, False)
        case "reopen" | "go":
            issue_title = ctx.forge.get_issue(issue).title
            opened = find_or_open_draft(
                ctx, issue, branch=branch, base=base, title=issue_title, known=pr
            )
            if action == "reopen" and opened.base_ref != base:
                opened = ctx.forge.edit_pr(opened.number, base=base)
            ready = finish_pr(
                ctx,
                opened.number,
                issue,
                title=title or opened.title,
                body=body if body is not None else opened.body,
                current=opened,
            )
            return Settled(ready.number, True)
