"""The wiki effects: pushing the wiki branch, wiki-check, publishing, the flow step; their
rows of the dispatch table."""

from __future__ import annotations

from pathlib import Path

from conveyor.core.redact import redact
from conveyor.core.state import IssueState
from conveyor.job.effects.parts import JobHands, JobPlace, JobPulse, JobSubject, PushRefused
from conveyor.job.effects.table import Dispatch
from conveyor.job.effects.writes import signature
from conveyor.ops.forge.finish_wiki import finish_wiki, post_published, published_text
from conveyor.ops.forge.flow_step import settle_pr
from conveyor.ops.forge.stack import pr_base_for
from conveyor.ops.local.publish_wiki import Published, publish_wiki
from conveyor.ops.local.wiki_branch import WikiCheckout, changed_pages, push_wiki, wiki_ahead
from conveyor.ops.local.wiki_branch import head as wiki_head
from conveyor.ops.local.wiki_check import check_wiki
from conveyor.stages.effects import Checked, Done, PrSettled, SettlePr
from conveyor.stages.effects_merge import CheckWiki, FinishWiki, PublishWiki, WikiPublished


def push_wiki_branch(
    wiki: WikiCheckout | None, pulse: JobPulse
) -> tuple[bool, tuple[str, ...]] | PushRefused:
    """Push the wiki branch when it has commits of its own (WT-9).

    Returns whether the wiki is ahead of its published branch (the wiki flow) and the
    wiki files this job's commits changed; a refused push is `PushRefused`.
    """
    if wiki is None:
        return False, ()
    pushed = push_wiki(wiki)
    if pushed is not None and not pushed.ok:
        return PushRefused(f"push of the wiki's {wiki.branch} refused: {pushed.error}")
    if pushed is not None:
        pulse.emit("pushed", ref=f"wiki:{pushed.ref}", sha=pushed.sha)
    return wiki_ahead(wiki), changed_pages(wiki, wiki.start_sha)


def run_check_wiki(wiki: WikiCheckout | None, pulse: JobPulse) -> Checked:
    """wiki-check on the wiki checkout's head; no wiki checkout has nothing to check."""
    if wiki is None:
        return Checked(True)
    found = check_wiki(wiki)
    pulse.emit("checks", head=wiki_head(wiki), passed=not found, wiki=True)
    return Checked(not found, tuple(f"wiki-check: {f}" for f in found))


def _publish(wiki: WikiCheckout | None, run_dir: Path) -> Published | None:
    if wiki is None:
        return None
    return publish_wiki(wiki, run_dir)


def run_publish_wiki(what: JobSubject, where: JobPlace, who: JobHands) -> Done:
    """After the PR merged: publish the wiki commits and list them on the issue (MRG-16)."""
    done = _publish(where.wiki, where.run_dir)
    if done is not None:
        post_published(who.ops, what.issue, done, signature(what, who.ops, "merger"))
    return Done()


def run_finish_wiki(
    what: JobSubject, where: JobPlace, who: JobHands, pulse: JobPulse, state: IssueState
) -> WikiPublished:
    """finish-wiki (FLOW-5): publish, then close the issue as merged with the commit list.

    Commits that no longer apply leave the issue open, for the stage to stop it.
    """
    done = _publish(where.wiki, where.run_dir)
    if done is None:
        return WikiPublished("conflict", "the repository has no wiki to publish to")
    if done.outcome == "conflict":
        return WikiPublished("conflict", published_text(done, wiki_only=True))
    finish_wiki(
        who.ops,
        what.issue,
        done,
        parent=state.parent,
        now=pulse.now(),
        signature=signature(what, who.ops, "merger"),
    )
    pulse.emit("merged", sha=None, wiki_only=True, commits=len(done.commits))
    return WikiPublished(done.outcome)


def run_settle(
    what: JobSubject,
    where: JobPlace,
    who: JobHands,
    pulse: JobPulse,
    state: IssueState,
    *,
    effect: SettlePr,
) -> PrSettled:
    """The shared flow step: close, reopen (or open) and ready, or ready the PR (FLOW-3); a
    stacked issue's new PR is based on its prerequisite's branch."""
    body = redact(effect.body, who.token_secrets) if effect.body is not None else None
    base = pr_base_for(who.forge, state.stacked_on, what.base)
    settled = settle_pr(
        who.ops,
        what.issue,
        effect.action,
        pr=state.pr,
        title=effect.title,
        body=body,
        wiki_branch=where.wiki.branch if where.wiki else what.branch,
        signature=signature(what, who.ops, "coordinator"),
        base=base,
    )
    if settled.number is not None and settled.number != state.pr:
        pulse.emit("pr-opened", pr=settled.number, draft=False)
    return PrSettled(settled.number, settled.open)


def rows(table: Dispatch) -> None:
    """The wiki and flow effects' rows of the dispatch table."""
    table.on(
        SettlePr,
        lambda c, s, e: run_settle(c.what, c.where, c.who, c.live.pulse, s, effect=e),
    )
    table.on(CheckWiki, lambda c, s, e: run_check_wiki(c.where.wiki, c.live.pulse))
    table.on(PublishWiki, lambda c, s, e: run_publish_wiki(c.what, c.where, c.who))
    table.on(FinishWiki, lambda c, s, e: run_finish_wiki(c.what, c.where, c.who, c.live.pulse, s))
