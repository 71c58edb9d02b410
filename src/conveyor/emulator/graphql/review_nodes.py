"""A PR's reviews and their inline comments as GraphQL nodes (`PullRequestReview`,
`PullRequestReviewComment`), each with GitHub's edit fields (`edit_fields.py`).

As GitHub: a pending review and its comments are shown only to its author; a review's
`comments` are the inline comments posted with it, oldest first (a reply posted on its own
is a review of its own, as the REST side records it).
"""

from __future__ import annotations

import sqlite3

from conveyor.emulator.graphql.edit_fields import Actor, comment_fields
from conveyor.emulator.graphql.paging import JSON, rows_page
from conveyor.emulator.model.review_rows import visible_reviews
from conveyor.emulator.model.store import Store


class ReviewNodes:
    """The reviews of one PR (its issue row's id) as the viewer `viewer_id` sees them."""

    def __init__(
        self, store: Store, actor: Actor, repo: sqlite3.Row, url: str, viewer_id: int
    ) -> None:
        self.store = store
        self.actor = actor
        self.repo = repo
        self.url = url
        self.viewer_id = viewer_id

    def reviews(
        self, issue_id: int, first: int | None, after: str | None, last: int | None
    ) -> JSON:
        """`PullRequest.reviews`: one page, oldest first."""
        every = visible_reviews(self.store, issue_id, self.viewer_id)
        return rows_page("reviews", every, self._review, first=first, after=after, last=last)

    def _review(self, r: sqlite3.Row) -> JSON:
        return comment_fields(
            self.store, self.actor, self.repo, r, typename="PullRequestReview", target="review"
        ) | {
            "state": r["state"],
            "url": f"{self.url}#pullrequestreview-{r['id']}",
            "submittedAt": r["submitted_at"],
            "createdAt": r["submitted_at"],
            "commit": {"__typename": "Commit", "oid": r["commit_id"]} if r["commit_id"] else None,
            "comments": lambda _i, first=None, after=None, last=None, **_: self._comments(
                int(r["id"]), first, after, last
            ),
        }

    def _comments(
        self, review_id: int, first: int | None, after: str | None, last: int | None
    ) -> JSON:
        """`PullRequestReview.comments`: the review's inline comments, oldest first."""
        every = self.store.all(
            "SELECT * FROM review_comments WHERE review_id = ? ORDER BY id", (review_id,)
        )
        return rows_page("comments", every, self._comment, first=first, after=after, last=last)

    def _comment(self, c: sqlite3.Row) -> JSON:
        line = c["line"]
        return comment_fields(
            self.store,
            self.actor,
            self.repo,
            c,
            typename="PullRequestReviewComment",
            target="review_comment",
        ) | {
            "path": c["path"],
            "line": line,
            "originalLine": line,
            "startLine": c["start_line"],
            "originalStartLine": c["start_line"],
            "diffHunk": c["diff_hunk"],
            "subjectType": "FILE" if line is None else "LINE",
            "url": f"{self.url}#discussion_r{c['id']}",
            "createdAt": c["created_at"],
            "updatedAt": c["updated_at"],
        }
