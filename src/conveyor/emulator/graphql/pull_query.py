"""GraphQL's `repository { pullRequests(headRefName:) }`: a branch's PRs with their reviews
and conversation comments, beside the issue `issue_query.py` answers.

As GitHub: `states` filters (OPEN, CLOSED, MERGED), PRs come oldest first, a pending
review is shown only to its author, and a PR's comments are its conversation comments
(the same list REST's issue comments route gives for its number).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from conveyor.emulator.graphql.issue_query import IssueQuery
from conveyor.emulator.graphql.paging import JSON, page, window
from conveyor.emulator.model.pull_rows import Pull, list_pulls
from conveyor.emulator.model.records import issue_row
from conveyor.emulator.model.review_rows import visible_reviews
from conveyor.emulator.model.shapes import repo_html_url
from conveyor.emulator.model.state import EmulatorState


def _state_of(pull: Pull) -> str:
    return "MERGED" if pull.merged else ("OPEN" if pull.state == "open" else "CLOSED")


class ThreadQuery(IssueQuery):
    """`IssueQuery` and the PRs of a head branch, as the viewer `viewer_id` sees them."""

    def __init__(self, state: EmulatorState, root: str, viewer_id: int, pull_shape: Any) -> None:
        super().__init__(state, root, pull_shape)
        self.viewer_id = viewer_id

    def repository(self, _info: Any, owner: str, name: str, **args: Any) -> JSON:
        """The repository's fields, its `pullRequests` too."""
        fields = super().repository(_info, owner, name, **args)
        repo = fields.pop("_row")
        fields["pullRequests"] = lambda _i, **given: self._pull_requests(repo, **given)
        return fields

    def _pull_requests(
        self,
        repo: sqlite3.Row,
        *,
        first: int | None = None,
        after: str | None = None,
        last: int | None = None,
        headRefName: str | None = None,  # noqa: N803 (GraphQL's name)
        states: list[str] | None = None,
        **_: Any,
    ) -> JSON:
        start = window("pullRequests", first, after, last)
        assert first is not None
        pulls = sorted(
            list_pulls(self.store, repo["id"], state="all", head_ref=headRefName),
            key=lambda p: p.number,
        )
        wanted = [p for p in pulls if not states or _state_of(p) in states]
        past = [p for p in wanted if p.id > start][: first + 1]
        nodes = [self._pull_node(repo, p) for p in past]
        return page([p.id for p in past], first, nodes) | {"totalCount": len(wanted)}

    def _pull_node(self, repo: sqlite3.Row, pull: Pull) -> JSON:
        row = issue_row(self.store, repo["id"], pull.number)
        assert row is not None
        url = f"{repo_html_url(self.root, repo['owner_login'], repo['name'])}/pull/{pull.number}"
        return self.pull_shape(pull) | {
            "reviews": lambda _i, first=None, after=None, last=None, **_: self._reviews(
                pull, url, first, after, last
            ),
            "comments": lambda _i, first=None, after=None, last=None, **_: self._comments(
                repo, row, url=url, first=first, after=after, last=last
            ),
        }

    def _reviews(
        self, pull: Pull, url: str, first: int | None, after: str | None, last: int | None
    ) -> JSON:
        start = window("reviews", first, after, last)
        assert first is not None
        every = visible_reviews(self.store, pull.issue_id, self.viewer_id)
        past = [r for r in every if r["id"] > start][: first + 1]
        nodes = [
            {
                "__typename": "PullRequestReview",
                "id": r["node_id"],
                "databaseId": r["id"],
                "fullDatabaseId": str(r["id"]),
                "body": r["body"] or "",
                "state": r["state"],
                "url": f"{url}#pullrequestreview-{r['id']}",
                "submittedAt": r["submitted_at"],
                "createdAt": r["submitted_at"],
                "commit": {"__typename": "Commit", "oid": r["commit_id"]}
                if r["commit_id"]
                else None,
                "author": self._actor(r["author_id"]),
            }
            for r in past
        ]
        return page([r["id"] for r in past], first, nodes) | {"totalCount": len(every)}
