"""The runner's wiki effects: pushing the wiki branch, wiki-check, publishing, the flow step."""

from __future__ import annotations

from conveyor.core.redact import redact
from conveyor.core.state import IssueState
from conveyor.job.context import JobContext
from conveyor.job.effects_forge import signature
from conveyor.ops.finish_wiki import finish_wiki, post_published, published_text
from conveyor.ops.flow_step import settle_pr
from conveyor.ops.publish_wiki import Published, publish_wiki
from conveyor.ops.stack import pr_base_for
from conveyor.ops.wiki_branch import changed_pages, push_wiki, wiki_ahead
from conveyor.ops.wiki_branch import head as wiki_head
from conveyor.ops.wiki_check import check_wiki
from conveyor.stages.effects import Checked, Done, PrSettled, SettlePr
from conveyor.stages.effects_merge import WikiPublished


class WikiPushFailed(RuntimeError):
    """The wiki refused the push of the issue's wiki branch."""


def push_wiki_branch(ctx: JobContext) -> tuple[bool, tuple[str, ...]]:
    """Push the wiki branch when it has commits of its own (WT-9).

    Returns whether the wiki is ahead of its published branch (the wiki flow) and the
    wiki files this job's commits changed.
    """
    wiki = ctx.where.wiki
    if wiki is None:
        return False, ()
    pushed = push_wiki(wiki)
    if pushed is not None and not pushed.ok:
        msg = f"push of the wiki's {wiki.branch} refused: {pushed.error}"
        raise WikiPushFailed(msg)
    if pushed is not None:
        ctx.live.events.emit("pushed", ref=f"wiki:{pushed.ref}", sha=pushed.sha)
    return wiki_ahead(wiki), changed_pages(wiki, wiki.start_sha)


def run_check_wiki(ctx: JobContext) -> Checked:
    """wiki-check on the wiki checkout's head; no wiki checkout has nothing to check."""
    if ctx.where.wiki is None:
        return Checked(True)
    found = check_wiki(ctx.where.wiki)
    ctx.live.events.emit("checks", head=wiki_head(ctx.where.wiki), passed=not found, wiki=True)
    return Checked(not found, tuple(f"wiki-check: {f}" for f in found))


def _publish(ctx: JobContext) -> Published | None:
    if ctx.where.wiki is None:
        return None
    return publish_wiki(ctx.where.wiki, ctx.where.run_dir)


def run_publish_wiki(ctx: JobContext) -> Done:
    """After the PR merged: publish the wiki commits and list them on the issue (MRG-16)."""
    done = _publish(ctx)
    if done is not None:
        post_published(ctx.who.ops, ctx.what.issue, done, signature(ctx, "merger"))
    return Done()


def run_finish_wiki(ctx: JobContext, state: IssueState) -> WikiPublished:
    """finish-wiki (FLOW-5): publish, then close the issue as merged with the commit list.

    Commits that no longer apply leave the issue open, for the stage to stop it.
    """
    done = _publish(ctx)
    if done is None:
        return WikiPublished("conflict", "the repository has no wiki to publish to")
    if done.outcome == "conflict":
        return WikiPublished("conflict", published_text(done, wiki_only=True))
    finish_wiki(
        ctx.who.ops,
        ctx.what.issue,
        done,
        parent=state.parent,
        now=ctx.live.now(),
        signature=signature(ctx, "merger"),
    )
    ctx.live.events.emit("merged", sha=None, wiki_only=True, commits=len(done.commits))
    return WikiPublished(done.outcome)


def run_settle(ctx: JobContext, state: IssueState, effect: SettlePr) -> PrSettled:
    """The shared flow step: close, reopen (or open) and ready, or ready the PR (FLOW-3); a
    stacked issue's new PR is based on its prerequisite's branch."""
    body = redact(effect.body, ctx.who.token_secrets) if effect.body is not None else None
    base = pr_base_for(ctx.who.forge, state.stacked_on, ctx.what.base)
    settled = settle_pr(
        ctx.who.ops,
        ctx.what.issue,
        effect.action,
        pr=state.pr,
        title=effect.title,
        body=body,
        wiki_branch=ctx.where.wiki.branch if ctx.where.wiki else ctx.what.branch,
        signature=signature(ctx, "coordinator"),
        base=base,
    )
    if settled.number is not None and settled.number != state.pr:
        ctx.live.events.emit("pr-opened", pr=settled.number, draft=False)
    return PrSettled(settled.number, settled.open)
