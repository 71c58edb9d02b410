"""The PR-feedback op: read people's reviews and comments on the PR, take the new ones (BB-FB).

Two or three reads (reviews, inline review comments, conversation comments); findings
and the advanced clock are saved in the state before the signed note is posted on
the PR, so a crash between the two loses no feedback (the note is only its account).
"""

from __future__ import annotations

from conveyor.core.feedback import Item, Taken, note, take
from conveyor.core.signatures import Signature
from conveyor.core.state import FeedbackSeen, IssueState
from conveyor.ops.forge.context import OpContext, fetch_comments
from conveyor.ops.forge.post import post_comment
from conveyor.ops.forge.state_store import save_state


def read_feedback(ctx: OpContext, pr: int, seen: FeedbackSeen) -> tuple[Item, ...]:
    """The reviews, review comments and conversation comments of PR `pr` as feedback items.

    Every review comment belongs to a review (one posted alone, or a reply, gets a review
    of its own), so the review comments are read only when a review is newer than `seen`.
    """
    reviews = ctx.forge.list_reviews(pr)
    fresh = any(r.id > seen.review for r in reviews)
    inline = ctx.forge.list_review_comments(pr) if fresh else ()
    comments = fetch_comments(ctx, pr)
    return (
        *(Item("review", r.id, r.author, r.body, r.html_url, state=r.state) for r in reviews),
        *(
            Item("review_comment", c.id, c.author, c.body, c.html_url, path=c.path, line=c.line)
            for c in inline
        ),
        *(Item("comment", c.id, c.author, c.body, c.html_url) for c in comments),
    )


def take_pr_feedback(
    ctx: OpContext,
    number: int,
    state: IssueState,
    *,
    signature: Signature | None = None,
    open_only: bool = False,
) -> Taken | None:
    """Take the PR's new feedback into issue `number`'s state; None when it has no PR.

    With findings, the state is saved and the note goes on the PR. Without, only the
    clock moved (past the pipeline's own comments, visitors' items): the job saves it
    with its next change, so reading costs no write. With `open_only`, findings on a
    PR that is merged or closed are left alone (a merge job finishing its close-out).
    """
    if state.pr is None:
        return None
    taken = take(state, read_feedback(ctx, state.pr, state.feedback), ctx.trust())
    if not taken.findings:
        return taken
    if open_only:
        pr = ctx.forge.get_pr(state.pr)
        if pr.merged or pr.state != "open":
            return None
    save_state(ctx, number, taken.state)
    kind = f"feedback-{taken.findings[0].id}"
    post_comment(ctx, state.pr, kind, note(taken), signature)
    return taken
