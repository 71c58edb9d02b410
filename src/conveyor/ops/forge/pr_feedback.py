"""The PR-feedback op: read people's reviews and comments on the PR, take the new ones (BB-FB).

The reviews and conversation comments come from the job's start read (GraphQL: each
comment with who last edited it) or else from REST, which cannot say. When a review is new
(its inline comments are wanted) or a trusted person's new comment came without its
editor, the PR's texts are read again through GraphQL (`read_pr_texts`, the read a review
of a person's PR makes): one request, which gives every text's last editor and the inline
comments, so `core.feedback.take` can hold what someone who is not trusted edited
(TRUST-12). Findings and the advanced clock are saved in the state before the signed note
is posted on the PR, so a crash between the two loses no feedback (the note is only its
account); a read that only held items posts the note and leaves the clock for the job's
next save.
"""

from __future__ import annotations

import dataclasses

from conveyor.core.feedback import Item, ItemKind, Taken, take, unknown_edits
from conveyor.core.feedback_note import note, note_kind
from conveyor.core.signatures import Signature
from conveyor.core.state import FeedbackSeen, IssueState
from conveyor.forge.pr_types import PrTexts, TextKind
from conveyor.ops.forge.context import OpContext, fetch_comments
from conveyor.ops.forge.post import post_comment
from conveyor.ops.forge.state_store import save_state

# Each item kind as the PR's texts name it.
_TEXT_KIND: dict[ItemKind, TextKind] = {
    "review": "review",
    "comment": "comment",
    "review_comment": "inline",
}


def read_feedback(ctx: OpContext, pr: int, seen: FeedbackSeen) -> tuple[Item, ...]:
    """The reviews, review comments and conversation comments of PR `pr` as feedback items,
    each with who last edited it where a trusted person's new item needs it.

    Every review comment belongs to a review (one posted alone, or a reply, gets a review
    of its own), so the review comments are read only when a review is newer than `seen`.
    """
    reviews = ctx.forge.list_reviews(pr)
    comments = fetch_comments(ctx, pr)
    items = (
        *(Item("review", r.id, r.author, r.body, r.html_url, state=r.state) for r in reviews),
        *(Item("comment", c.id, c.author, c.body, c.html_url, edits=c.edits) for c in comments),
    )
    fresh = any(r.id > seen.review for r in reviews)
    if not fresh and not unknown_edits(items, seen, ctx.trust()):
        return items
    return with_texts(items, ctx.forge.read_pr_texts(pr))


def with_texts(items: tuple[Item, ...], texts: PrTexts) -> tuple[Item, ...]:
    """The items with each one's edit facts from the PR's texts (an item the texts lack keeps
    what it had), and the inline review comments from them."""
    edits = {(t.kind, t.id): t.edits for t in texts.texts}
    known = tuple(
        dataclasses.replace(i, edits=edits.get((_TEXT_KIND[i.kind], i.id), i.edits)) for i in items
    )
    inline = tuple(
        Item("review_comment", t.id, t.author, t.body, t.url, path=t.path, line=t.line,
             edits=t.edits)
        for t in texts.texts
        if t.kind == "inline"
    )  # fmt: skip
    return (*known, *inline)


def take_pr_feedback(
    ctx: OpContext,
    number: int,
    state: IssueState,
    *,
    signature: Signature | None = None,
    open_only: bool = False,
) -> Taken | None:
    """Take the PR's new feedback into issue `number`'s state; None when it has no PR.

    With findings, the state is saved and the note goes on the PR; with held items only,
    the note goes on the PR. Without either, only the clock moved (past the pipeline's own
    comments, visitors' items): the job saves it with its next change, so reading costs no
    write. With `open_only`, feedback on a PR that is merged or closed is left alone (a
    merge job finishing its close-out).
    """
    if state.pr is None:
        return None
    taken = take(state, read_feedback(ctx, state.pr, state.feedback), ctx.trust())
    if not taken.findings and not taken.held:
        return taken
    if open_only:
        pr = ctx.forge.get_pr(state.pr)
        if pr.merged or pr.state != "open":
            return None
    if taken.findings:
        save_state(ctx, number, taken.state)
    post_comment(ctx, state.pr, note_kind(taken), note(taken), signature)
    return taken
