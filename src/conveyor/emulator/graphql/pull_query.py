"""GraphQL's `repository { pullRequests(headRefName:) }` and `pullRequest(number:)`: PRs with
their author, reviews (and their inline comments: `review_nodes.py`) and conversation
comments, beside the issue `issue_query.py` answers.

As GitHub: `states` filters (OPEN, CLOSED, MERGED), PRs come oldest first, a pending
review is shown only to its author, and a PR's comments are its conversation comments
(the same list REST's issue comments route gives for its number). The PR's body, each
comment, review and inline comment carry the edit fields (`lastEditedAt`, `editor`,
`userContentEdits`): a PR's body is kept on its issue row, so its history is the row's.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from conveyor.emulator.graphql.edit_fields import edit_fields
from conveyor.emulator.graphql.issue_query import IssueQuery
from conveyor.emulator.graphql.paging import JSON, NotFoundError, page, window
from conveyor.emulator.graphql.review_nodes import ReviewNodes
from conveyor.emulator.model.issue_rows import association_of
from conveyor.emulator.model.pull_rows import Pull, get_pull, list_pulls
from conveyor.emulator.model.records import issue_row
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
        fields["pullRequest"] = lambda _i, number: self._pull_by_number(repo, number)
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

    def _pull_by_number(self, repo: sqlite3.Row, number: int) -> JSON:
        """`repository.pullRequest(number:)`; GitHub's NOT_FOUND for an issue or no number."""
        pull = get_pull(self.store, repo["id"], number)
        if pull is None:
            raise NotFoundError(f"Could not resolve to a PullRequest with the number of {number}.")
        return self._pull_node(repo, pull)

    def _pull_node(self, repo: sqlite3.Row, pull: Pull) -> JSON:
        row = issue_row(self.store, repo["id"], pull.number)
        assert row is not None
        url = f"{repo_html_url(self.root, repo['owner_login'], repo['name'])}/pull/{pull.number}"
        reviews = ReviewNodes(self.store, self._actor, repo, url, self.viewer_id)
        return self.pull_shape(pull) | {
            "author": self._actor(row["author_id"]),
            "authorAssociation": association_of(self.store, repo, row["author_id"]),
            "reviews": lambda _i, first=None, after=None, last=None, **_: reviews.reviews(
                pull.issue_id, first, after, last
            ),
            "comments": lambda _i, first=None, after=None, last=None, **_: self._comments(
                repo, row, url=url, first=first, after=after, last=last
            ),
            **edit_fields(self.store, self._actor, "issue", int(row["id"])),
        }
