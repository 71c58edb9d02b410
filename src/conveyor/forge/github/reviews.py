"""Review operations of the GitHub client: a PR's reviews and inline review comments.

The pipeline reads them (people's feedback) and posts one review on a person's PR
(`create_review` with inline comments at lines of the diff); `create_review_comment` is
how a person (a test, the demo) writes a lone comment.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from githubkit.utils import UNSET
from githubkit_schemas.latest.models import PullRequestReview, PullRequestReviewComment

from conveyor.forge.github.convert import login_of
from conveyor.forge.github.paging import PagedOps
from conveyor.forge.pr_types import InlineComment
from conveyor.forge.protocol import ReviewEvent
from conveyor.forge.review_types import Review, ReviewComment


def to_review(review: PullRequestReview) -> Review:
    """A review as the pipeline reads it."""
    submitted = review.submitted_at
    return Review(
        id=review.id,
        author=login_of(review.user),
        body=review.body or "",
        state=review.state,
        commit_id=review.commit_id,
        submitted_at=None if submitted is UNSET else submitted,
        html_url=review.html_url,
    )


def to_review_comment(comment: PullRequestReviewComment) -> ReviewComment:
    """An inline review comment as the pipeline reads it."""
    line, reply = comment.line, comment.in_reply_to_id
    return ReviewComment(
        id=comment.id,
        review_id=comment.pull_request_review_id,
        author=login_of(comment.user),
        body=comment.body or "",
        path=comment.path,
        line=None if line is UNSET else line,
        in_reply_to=None if reply is UNSET else reply,
        commit_id=comment.commit_id,
        created_at=comment.created_at,
        updated_at=comment.updated_at,
        html_url=comment.html_url,
        side=comment.side or "RIGHT",
    )


def _inline(comment: InlineComment | tuple[str, int, str]) -> dict[str, Any]:
    """One inline comment as the create-review request's `comments` item."""
    if isinstance(comment, tuple):
        comment = InlineComment(comment[0], comment[1], comment[2])
    item: dict[str, Any] = {
        "path": comment.path,
        "line": comment.line,
        "side": comment.side,
        "body": comment.body,
    }
    if comment.start_line is not None and comment.start_line < comment.line:
        item |= {"start_line": comment.start_line, "start_side": comment.side}
    return item


class ReviewOps(PagedOps):
    """PR reviews and review comments: read every page; people write them."""

    def list_reviews(self, number: int) -> tuple[Review, ...]:
        """Every review of PR `number`, oldest first (a pending one only when it is ours)."""
        pulls = self._kit.rest.pulls
        found = self._every("list reviews", number, pulls.list_reviews, PullRequestReview)
        return tuple(to_review(r) for r in found)

    def list_review_comments(self, number: int) -> tuple[ReviewComment, ...]:
        """Every inline review comment of PR `number`, oldest first."""
        pulls = self._kit.rest.pulls
        found = self._every(
            "list review comments", number, pulls.list_review_comments, PullRequestReviewComment
        )
        return tuple(to_review_comment(c) for c in found)

    def create_review(
        self,
        number: int,
        body: str,
        event: ReviewEvent | None = "COMMENT",
        comments: Sequence[InlineComment | tuple[str, int, str]] = (),
        *,
        commit_id: str | None = None,
    ) -> Review:
        """Review PR `number` at `commit_id` (None: its head) with inline comments (an
        `InlineComment`, or (path, line, body) on the new side); event None leaves it pending."""
        inline = [_inline(c) for c in comments]
        response = self._run(
            "create review",
            number,
            lambda: self._kit.rest.pulls.create_review(
                self._owner,
                self._name,
                number,
                body=body,
                event=UNSET if event is None else event,
                comments=inline or UNSET,
                commit_id=UNSET if commit_id is None else commit_id,
            ),
        )
        return to_review(response.parsed_data)

    def create_review_comment(
        self,
        number: int,
        body: str,
        *,
        commit_id: str,
        path: str,
        line: int | None = None,
        in_reply_to: int | None = None,
    ) -> ReviewComment:
        """One inline comment on PR `number` at `path`, `line` of commit `commit_id`, or a
        reply to comment `in_reply_to` (which keeps that thread's place)."""
        response = self._run(
            "create review comment",
            number,
            lambda: self._kit.rest.pulls.create_review_comment(
                self._owner,
                self._name,
                number,
                body=body,
                commit_id=commit_id,
                path=path,
                line=UNSET if line is None else line,
                side="RIGHT",
                in_reply_to=UNSET if in_reply_to is None else in_reply_to,
            ),
        )
        return to_review_comment(response.parsed_data)
