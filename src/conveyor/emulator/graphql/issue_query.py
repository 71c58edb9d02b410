"""GraphQL's `repository { issueOrPullRequest(number:) }`: an issue with its labels and comments.

An issue and each comment carry GitHub's edit fields (`lastEditedAt`, `editor`,
`userContentEdits`: `edit_fields.py`); `node(id:)` answers an issue or a comment by its id.

Answered as GitHub does for the fields the pipeline reads: connections take `first` (1 to
100, required) and `after` (an opaque cursor), with `pageInfo` and `totalCount`; a `Bot`
author's `login` has no `[bot]` suffix (REST's `user.login` has it); ids past 32 bits are
in `fullDatabaseId`, a string. Comments made in the last `list_lag_ms` are not yet listed,
as on REST. A missing repository or number answers null with GitHub's `NOT_FOUND` error.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from typing import Any

from conveyor.emulator.graphql.edit_fields import comment_fields
from conveyor.emulator.graphql.paging import JSON, NotFoundError, page, rows_page, window
from conveyor.emulator.model.issue_rows import issue_labels
from conveyor.emulator.model.pull_rows import get_pull
from conveyor.emulator.model.records import issue_row, repo_row
from conveyor.emulator.model.shapes import repo_html_url
from conveyor.emulator.model.state import EmulatorState
from conveyor.emulator.model.store import parse_node_id

REASONS = {"completed": "COMPLETED", "not_planned": "NOT_PLANNED", "reopened": "REOPENED"}
PullShape = Callable[[Any], JSON]


class IssueQuery:
    """The resolvers of one request: the store, the web root, the lag knob."""

    def __init__(self, state: EmulatorState, root: str, pull_shape: PullShape) -> None:
        self.state = state
        self.store = state.store
        self.root = root
        self.pull_shape = pull_shape

    def repository(self, _info: Any, owner: str, name: str, **_: Any) -> JSON:
        """`repository(owner:, name:)`: the fields the emulator answers of it."""
        repo = repo_row(self.store, owner, name)
        if repo is None:
            raise NotFoundError(
                f"Could not resolve to a Repository with the name '{owner}/{name}'."
            )
        return {
            "__typename": "Repository",
            "id": repo["node_id"],
            "name": repo["name"],
            "nameWithOwner": f"{owner}/{name}",
            "_row": repo,
            "issueOrPullRequest": lambda _i, number: self._issue_or_pull(repo, number),
        }

    def node(self, _info: Any, id: str) -> JSON:  # noqa: A002 (GraphQL's name)
        """`node(id:)`: an issue or an issue comment (what the pipeline asks by id)."""
        kind, ident = parse_node_id(id) or ("", 0)
        table = {"I": "issues", "IC": "comments"}.get(kind)
        row = self.store.one(f"SELECT * FROM {table} WHERE id = ?", (ident,)) if table else None
        repo = self._repo_by_id(row["repo_id"]) if row is not None else None
        if row is None or repo is None:
            raise NotFoundError(f"Could not resolve to a node with the global id of '{id}'")
        if kind == "I":
            return self._issue(repo, row)
        issue = self.store.one("SELECT * FROM issues WHERE id = ?", (row["issue_id"],))
        assert issue is not None
        owner, name = repo["owner_login"], repo["name"]
        url = f"{repo_html_url(self.root, owner, name)}/issues/{issue['number']}"
        return self._comment_node(repo, row, url, {})

    def _repo_by_id(self, repo_id: int) -> sqlite3.Row | None:
        return self.store.one(
            "SELECT repos.*, users.login AS owner_login FROM repos "
            "JOIN users ON users.id = repos.owner_id WHERE repos.id = ?",
            (repo_id,),
        )

    def _issue_or_pull(self, repo: sqlite3.Row, number: int) -> JSON | None:
        row = issue_row(self.store, repo["id"], number)
        if row is None:
            raise NotFoundError(
                f"Could not resolve to an issue or pull request with the number of {number}."
            )
        if row["is_pull"]:
            pull = get_pull(self.store, repo["id"], number)
            return self.pull_shape(pull) if pull is not None else None
        return self._issue(repo, row)

    def _actor(self, user_id: int | None) -> JSON | None:
        user = self.store.one("SELECT * FROM users WHERE id = ?", (user_id,))
        if user is None:
            return None
        kind = user["type"] if user["type"] in ("User", "Bot", "Organization") else "User"
        login = user["login"].removesuffix("[bot]") if kind == "Bot" else user["login"]
        return {"__typename": kind, "login": login, "databaseId": user["id"]}

    def _issue(self, repo: sqlite3.Row, row: sqlite3.Row) -> JSON:
        owner, name = repo["owner_login"], repo["name"]
        url = f"{repo_html_url(self.root, owner, name)}/issues/{row['number']}"
        reason = row["state_reason"]

        def state_reason(_info: Any, enableDuplicate: bool = False) -> str | None:  # noqa: N803
            if reason == "duplicate":
                return "DUPLICATE" if enableDuplicate else "NOT_PLANNED"
            return REASONS.get(reason) if reason else None

        return comment_fields(
            self.store, self._actor, repo, row, typename="Issue", target="issue"
        ) | {
            "number": row["number"],
            "title": row["title"],
            "state": "OPEN" if row["state"] == "open" else "CLOSED",
            "stateReason": state_reason,
            "closed": row["state"] != "open",
            "closedAt": row["closed_at"],
            "locked": bool(row["locked"]),
            "url": url,
            "createdAt": row["created_at"],
            "updatedAt": row["updated_at"],
            "labels": lambda _i, first=None, after=None, last=None, **_: self._labels(
                row["id"], first, after, last
            ),
            "comments": lambda _i, first=None, after=None, last=None, **_: self._comments(
                repo, row, url=url, first=first, after=after, last=last
            ),
        }

    def _labels(
        self, issue_id: int, first: int | None, after: str | None, last: int | None
    ) -> JSON:
        every = issue_labels(self.store, issue_id)
        return rows_page("labels", every, _label_node, first=first, after=after, last=last)

    def _comments(
        self,
        repo: sqlite3.Row,
        issue: sqlite3.Row,
        *,
        url: str,
        first: int | None,
        after: str | None,
        last: int | None,
    ) -> JSON:
        start = window("comments", first, after, last)
        assert first is not None
        where, params = "issue_id = ?", [issue["id"]]
        if self.state.knobs.list_lag_ms > 0:
            where += " AND created_ms <= ?"
            params.append(int(time.time() * 1000) - self.state.knobs.list_lag_ms)
        total = self.store.one(f"SELECT COUNT(*) AS n FROM comments WHERE {where}", params)
        rows = self.store.all(
            f"SELECT * FROM comments WHERE {where} AND id > ? ORDER BY id LIMIT ?",
            [*params, start, first + 1],
        )
        authors: dict[int | None, JSON | None] = {}
        nodes = [self._comment_node(repo, r, url, authors) for r in rows]
        return page([r["id"] for r in rows], first, nodes) | {
            "totalCount": int(total["n"]) if total else 0
        }

    def _comment_node(
        self, repo: sqlite3.Row, r: sqlite3.Row, url: str, authors: dict[int | None, JSON | None]
    ) -> JSON:
        """An `IssueComment` (`authors` keeps the actors already read for this page)."""

        def actor(user_id: int | None) -> JSON | None:
            if user_id not in authors:
                authors[user_id] = self._actor(user_id)
            return authors[user_id]

        return comment_fields(
            self.store, actor, repo, r, typename="IssueComment", target="comment"
        ) | {
            "url": f"{url}#issuecomment-{r['id']}",
            "createdAt": r["created_at"],
            "updatedAt": r["updated_at"],
        }


def _label_node(r: sqlite3.Row) -> JSON:
    return {
        "__typename": "Label",
        "id": r["node_id"],
        "name": r["name"],
        "color": r["color"],
        "description": r["description"],
    }
