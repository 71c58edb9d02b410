"""A PR's reviews and their inline comments as GraphQL nodes (`PullRequestReview`,
`PullRequestReviewComment`), each with GitHub's edit fields (`edit_fields.py`).

As GitHub: a pending review and its comments are shown only to its author; a review's
`comments` are the inline comments posted with it, oldest first (a reply posted on its own
is a review of its own, as the REST side records it).
"""

from __future__ import annotations

import sqlite3

from conveyor.emulator.graphql.edit_fields import Actor, edit_fields
from conveyor.emulator.graphql.paging import JSON, page, window
from conveyor.emulator.model.issue_rows import association_of
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
        start = window("reviews", first, after, last)
        assert first is not None
        every = visible_reviews(self.store, issue_id, self.viewer_id)
        past = [r for r in every if r["id"] > start][: first + 1]
        nodes = [self._review(r) for r in past]
        return page([r["id"] for r in past], first, nodes) | {"totalCount": len(every)}

    def _review(self, r: sqlite3.Row) -> JSON:
        return {
            "__typename": "PullRequestReview",
            "id": r["node_id"],
            "databaseId": r["id"],
            "fullDatabaseId": str(r["id"]),
            "body": r["body"] or "",
            "state": r["state"],
            "url": f"{self.url}#pullrequestreview-{r['id']}",
            "submittedAt": r["submitted_at"],
            "createdAt": r["submitted_at"],
            "commit": {"__typename": "Commit", "oid": r["commit_id"]} if r["commit_id"] else None,
            "author": self.actor(r["author_id"]),
            "authorAssociation": association_of(self.store, self.repo, r["author_id"]),
            "comments": lambda _i, first=None, after=None, last=None, **_: self._comments(
                int(r["id"]), first, after, last
            ),
            **edit_fields(self.store, self.actor, "review", int(r["id"])),
        }

    def _comments(
        self, review_id: int, first: int | None, after: str | None, last: int | None
    ) -> JSON:
        """`PullRequestReview.comments`: the review's inline comments, oldest first."""
        start = window("comments", first, after, last)
        assert first is not None
        every = self.store.all(
            "SELECT * FROM review_comments WHERE review_id = ? ORDER BY id", (review_id,)
        )
        past = [c for c in every if c["id"] > start][: first + 1]
        nodes = [self._comment(c) for c in past]
        return page([c["id"] for c in past], first, nodes) | {"totalCount": len(every)}

    def _comment(self, c: sqlite3.Row) -> JSON:
        line = c["line"]
        return {
            "__typename": "PullRequestReviewComment",
            "id": c["node_id"],
            "databaseId": c["id"],
            "fullDatabaseId": str(c["id"]),
            "body": c["body"] or "",
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
            "author": self.actor(c["author_id"]),
            "authorAssociation": association_of(self.store, self.repo, c["author_id"]),
            **edit_fields(self.store, self.actor, "review_comment", int(c["id"])),
        }
