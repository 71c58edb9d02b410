"""Posting a review of a person's PR: one signed GitHub review, never a push or a merge.

The body is signed like every pipeline comment and redacted of the token. A review this
run already posted (a job that died after posting) is found by its marker and not posted
twice. Where the forge refuses the inline comments' places (a head that moved under them),
the same review is posted once more with every comment in the body: nothing is lost.
"""

from __future__ import annotations

from conveyor.core.redact import redact
from conveyor.core.signatures import Signature
from conveyor.core.trust import same_login
from conveyor.forge.errors import Validation
from conveyor.forge.pr_types import InlineComment
from conveyor.forge.protocol import Forge
from conveyor.ops.forge.context import OpContext
from conveyor.ops.forge.post import post_comment
from conveyor.stages.effects_pr_review import (
    NoteOnPr,
    Placed,
    PostPrReview,
    PrHeadRead,
    PrReviewPosted,
)

KIND = "pr-review"


def read_pr_head(forge: Forge, number: int) -> PrHeadRead:
    """Where the PR is now: open or not, and its head."""
    pr = forge.get_pr(number)
    return PrHeadRead(pr.state == "open" and not pr.merged, pr.head_sha or None)


def _inline(placed: Placed, secrets: tuple[str, ...]) -> InlineComment:
    return InlineComment(placed.path, placed.line, redact(placed.body, secrets), placed.side,
                         placed.start_line)  # fmt: skip


def _in_body(effect: PostPrReview) -> str:
    """The body with every inline comment written into it, by file and line."""
    parts = [f"**`{c.path}:{c.line}`**\n\n{c.body}" for c in effect.comments]
    if not parts:
        return effect.body
    return effect.body.replace(
        "\n\n<!-- conveyor:pr-review ",
        "\n\n**On the diff** (the forge refused these comments' places)\n\n"
        + "\n\n---\n\n".join(parts)
        + "\n\n<!-- conveyor:pr-review ",
        1,
    )


def post_pr_review(
    ops: OpContext, number: int, effect: PostPrReview, *, signature: Signature,
    secrets: tuple[str, ...],
) -> PrReviewPosted:  # fmt: skip
    """Post the review (or find the one this run posted already)."""
    forge = ops.forge
    mark = signature.marker(KIND)
    for review in forge.list_reviews(number):
        if same_login(review.author, ops.account) and mark in review.body:
            return PrReviewPosted(review.id, review.html_url, 0)
    body = redact(signature.sign(KIND, effect.body), secrets)
    comments = [_inline(c, secrets) for c in effect.comments]
    try:
        posted = forge.create_review(number, body, effect.event, comments,
                                     commit_id=effect.commit_id)  # fmt: skip
        return PrReviewPosted(posted.id, posted.html_url, len(comments))
    except Validation:
        if not comments:
            raise
    flat = redact(signature.sign(KIND, _in_body(effect)), secrets)
    posted = forge.create_review(number, flat, effect.event, (), commit_id=effect.commit_id)
    return PrReviewPosted(posted.id, posted.html_url, 0)


def note_on_pr(
    ops: OpContext, number: int, effect: NoteOnPr, *, signature: Signature,
    secrets: tuple[str, ...],
) -> None:  # fmt: skip
    """One signed comment on the PR (once per run and kind)."""
    post_comment(ops, number, effect.kind, redact(effect.text, secrets), signature)
