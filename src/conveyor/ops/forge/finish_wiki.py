"""finish-wiki and the wiki comments of a merge: what a person reads about published pages.

A wiki-only change has no PR to merge: finish-wiki posts the closing comment that lists
the published commits, closes the issue as completed and applies `agent:merged` (FLOW-5).
A change with code too gets the same list after its PR merged, or, when its pages no
longer apply to the wiki, a note naming the saved patch (MRG-16).
"""

from __future__ import annotations

from datetime import datetime

from conveyor.core.labels import Status, status_label
from conveyor.core.signatures import Signature
from conveyor.ops.forge.claim_comments import close_live_claims
from conveyor.ops.forge.context import OpContext
from conveyor.ops.forge.labels import set_agent_label
from conveyor.ops.forge.post import post_comment
from conveyor.ops.forge.split import close_parent
from conveyor.ops.local.publish_wiki import Published


def commit_lines(published: Published) -> str:
    """One line per published commit: its short SHA and subject."""
    if not published.commits:
        return "No commit was new to the wiki: its pages were already published."
    return "\n".join(f"- `{c.sha[:12]}` {c.subject}" for c in published.commits)


def published_text(published: Published, *, wiki_only: bool) -> str:
    """The comment listing the published wiki commits (or what kept them back)."""
    if published.outcome == "conflict":
        pages = ", ".join(f"`{p}`" for p in published.conflicts) or "its pages"
        name = published.patch.name if published.patch else "a patch"
        return (
            "### Wiki not published\n\nThe issue's wiki commits no longer apply to the wiki's "
            f"`{published.base}` ({pages} changed there since). They are saved as `{name}` in "
            "the issue's run folder; apply them by hand."
        )
    head = "### Merged: wiki only" if wiki_only else "### Wiki published"
    where = f"Published on the wiki's `{published.base}`:"
    return f"{head}\n\n{where}\n\n{commit_lines(published)}\n"


def post_published(ctx: OpContext, issue: int, published: Published, signature: Signature) -> None:
    """After a PR merged: say on the issue which wiki commits were published (MRG-16)."""
    if published.outcome == "nothing" and not published.commits:
        return
    post_comment(ctx, issue, "wiki", published_text(published, wiki_only=False), signature)


def finish_wiki(
    ctx: OpContext,
    issue: int,
    published: Published,
    *,
    parent: int | None,
    now: datetime,
    signature: Signature,
) -> None:
    """Close a published wiki-only issue as merged: comment, label, claims, branch, parent.

    The open PRs of issues stacked on this one are based on the base before its branch
    goes, as GitHub itself retargets them only when a merged PR's branch is deleted
    (it closes them otherwise); the branch holds no code of the issue's own.
    """
    post_comment(ctx, issue, "merged", published_text(published, wiki_only=True), signature)
    ctx.forge.close_issue(issue, "completed")
    labels = ctx.forge.get_issue(issue).labels
    set_agent_label(ctx, issue, labels, status_label(Status.MERGED))
    close_live_claims(ctx, issue, now, "The wiki pages were published.")
    branch = f"agent/issue-{issue}"
    for number in ctx.forge.list_prs_into(branch):
        ctx.forge.edit_pr(number, base=ctx.config.base)
    ctx.forge.delete_branch(branch)
    if parent is not None:
        close_parent(ctx, parent, now=now)
