"""PR reviews and review comments in the store, and their JSON in GitHub's shapes.

A review belongs to a PR (its issue row) and is PENDING until submitted with an
event (APPROVED, CHANGES_REQUESTED, COMMENTED). Every review comment belongs to a
review: a comment posted on its own gets a COMMENTED review with an empty body,
as on GitHub. A reply (`in_reply_to_id`) takes its thread's path and line.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

from conveyor.emulator.model.issue_rows import association_of
from conveyor.emulator.model.shapes import now_iso, repo_api_url, repo_html_url, user_json
from conveyor.emulator.model.store import Store, make_node_id, register_schema

REVIEWS_DDL = """
CREATE TABLE IF NOT EXISTS reviews (
    id INTEGER PRIMARY KEY, node_id TEXT NOT NULL, repo_id INTEGER NOT NULL,
    issue_id INTEGER NOT NULL, author_id INTEGER NOT NULL, body TEXT NOT NULL,
    state TEXT NOT NULL, commit_id TEXT NOT NULL, submitted_at TEXT);
CREATE INDEX IF NOT EXISTS reviews_by_pull ON reviews (issue_id, id);
CREATE TABLE IF NOT EXISTS review_comments (
    id INTEGER PRIMARY KEY, node_id TEXT NOT NULL, repo_id INTEGER NOT NULL,
    issue_id INTEGER NOT NULL, review_id INTEGER NOT NULL, author_id INTEGER NOT NULL,
    body TEXT NOT NULL, path TEXT NOT NULL, line INTEGER, side TEXT NOT NULL,
    start_line INTEGER, start_side TEXT, commit_id TEXT NOT NULL, diff_hunk TEXT NOT NULL,
    in_reply_to_id INTEGER, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS review_comments_by_pull ON review_comments (issue_id, id);
"""
register_schema(REVIEWS_DDL)

EVENTS = {"APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED", "COMMENT": "COMMENTED"}


@dataclass(frozen=True)
class Where:
    """Where a review comment sits: a file, the line on its side (RIGHT: the new file, LEFT:
    the old; None: the whole file), the first line of a range, the commit it was made on and
    its diff hunk."""

    path: str
    line: int | None
    start_line: int | None
    commit_id: str
    diff_hunk: str
    in_reply_to: int | None = None
    side: str = "RIGHT"


def insert_review(
    conn: sqlite3.Connection,
    store: Store,
    pull: sqlite3.Row,
    *,
    author_id: int,
    body: str,
    state: str,
    commit_id: str,
) -> int:
    """A new review of the PR whose issue row is `pull` (inside `tx`); its id. A submitted
    review answers its author's review request: GitHub takes them off the requested
    reviewers (with no `review_request_removed` event)."""
    ident = store.next_id(conn)
    submitted = None if state == "PENDING" else now_iso()
    conn.execute(
        "INSERT INTO reviews (id, node_id, repo_id, issue_id, author_id, body, state, "
        "commit_id, submitted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            ident,
            make_node_id("PRR", ident),
            pull["repo_id"],
            pull["id"],
            author_id,
            body,
            state,
            commit_id,
            submitted,
        ),
    )
    if submitted is not None:
        conn.execute(
            "DELETE FROM review_requests WHERE issue_id = ? AND user_id = ?",
            (pull["id"], author_id),
        )
    return ident


def insert_comment(
    conn: sqlite3.Connection,
    store: Store,
    pull: sqlite3.Row,
    *,
    review_id: int,
    author_id: int,
    body: str,
    where: Where,
) -> int:
    """A new review comment in review `review_id` (inside `tx`); its id."""
    ident = store.next_id(conn)
    now = now_iso()
    conn.execute(
        "INSERT INTO review_comments (id, node_id, repo_id, issue_id, review_id, author_id, "
        "body, path, line, side, start_line, start_side, commit_id, diff_hunk, in_reply_to_id, "
        "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            ident,
            make_node_id("PRRC", ident),
            pull["repo_id"],
            pull["id"],
            review_id,
            author_id,
            body,
            where.path,
            where.line,
            where.side,
            where.start_line,
            None if where.start_line is None else where.side,
            where.commit_id,
            where.diff_hunk,
            where.in_reply_to,
            now,
            now,
        ),
    )
    return ident


def visible_reviews(store: Store, issue_id: int, viewer_id: int | None) -> list[sqlite3.Row]:
    """A PR's reviews, oldest first; a pending review only to its author."""
    return store.all(
        "SELECT * FROM reviews WHERE issue_id = ? AND (state != 'PENDING' OR author_id = ?) "
        "ORDER BY id",
        (issue_id, viewer_id if viewer_id is not None else -1),
    )


def visible_comments(store: Store, issue_id: int, viewer_id: int | None) -> list[sqlite3.Row]:
    """A PR's review comments, oldest first; those of a pending review only to its author."""
    return store.all(
        "SELECT c.* FROM review_comments c JOIN reviews r ON r.id = c.review_id "
        "WHERE c.issue_id = ? AND (r.state != 'PENDING' OR r.author_id = ?) ORDER BY c.id",
        (issue_id, viewer_id if viewer_id is not None else -1),
    )


def submitted_comments(store: Store, issue_id: int) -> int:
    """How many review comments of submitted reviews a PR has (its `review_comments`)."""
    row = store.one(
        "SELECT COUNT(*) AS n FROM review_comments c JOIN reviews r ON r.id = c.review_id "
        "WHERE c.issue_id = ? AND r.state != 'PENDING'",
        (issue_id,),
    )
    return int(row["n"]) if row is not None else 0


class Shaper:
    """Turns rows of one PR into GitHub's JSON (authors looked up once each)."""

    def __init__(self, store: Store, base: str, repo: sqlite3.Row, number: int) -> None:
        self.store = store
        self.base = base
        self.repo = repo
        self.number = number
        self.owner = str(repo["owner_login"])
        self.name = str(repo["name"])
        self._people: dict[int, tuple[dict[str, Any], str]] = {}

    def _author(self, user_id: int) -> tuple[dict[str, Any], str]:
        if user_id not in self._people:
            user = self.store.one("SELECT * FROM users WHERE id = ?", (user_id,))
            assert user is not None
            association = association_of(self.store, self.repo, user_id)
            self._people[user_id] = (user_json(self.base, user), association)
        return self._people[user_id]

    @property
    def pull_api(self) -> str:
        """The PR's API URL."""
        return f"{repo_api_url(self.base, self.owner, self.name)}/pulls/{self.number}"

    @property
    def pull_html(self) -> str:
        """The PR's web address."""
        return f"{repo_html_url(self.base, self.owner, self.name)}/pull/{self.number}"

    def review(self, row: sqlite3.Row) -> dict[str, Any]:
        """A `pull-request-review`."""
        user, association = self._author(int(row["author_id"]))
        html = f"{self.pull_html}#pullrequestreview-{row['id']}"
        data: dict[str, Any] = {
            "id": row["id"],
            "node_id": row["node_id"],
            "user": user,
            "body": row["body"],
            "state": row["state"],
            "html_url": html,
            "pull_request_url": self.pull_api,
            "_links": {"html": {"href": html}, "pull_request": {"href": self.pull_api}},
            "commit_id": row["commit_id"],
            "author_association": association,
        }
        if row["submitted_at"] is not None:
            data["submitted_at"] = row["submitted_at"]
        return data

    def comment(self, row: sqlite3.Row) -> dict[str, Any]:
        """A `pull-request-review-comment`."""
        user, association = self._author(int(row["author_id"]))
        api = f"{repo_api_url(self.base, self.owner, self.name)}/pulls/comments/{row['id']}"
        html = f"{self.pull_html}#discussion_r{row['id']}"
        data: dict[str, Any] = {
            "url": api,
            "pull_request_review_id": row["review_id"],
            "id": row["id"],
            "node_id": row["node_id"],
            "diff_hunk": row["diff_hunk"],
            "path": row["path"],
            "commit_id": row["commit_id"],
            "original_commit_id": row["commit_id"],
            "user": user,
            "body": row["body"],
            "created_at": row["created_at"],
            "updated_at": row["updated_at"],
            "html_url": html,
            "pull_request_url": self.pull_api,
            "author_association": association,
            "_links": {
                "self": {"href": api},
                "html": {"href": html},
                "pull_request": {"href": self.pull_api},
            },
            "start_line": row["start_line"],
            "original_start_line": row["start_line"],
            "start_side": row["start_side"],
            "side": row["side"],
            "subject_type": "file" if row["line"] is None else "line",
        }
        if row["line"] is not None:
            data["line"] = data["original_line"] = row["line"]
        if row["in_reply_to_id"] is not None:
            data["in_reply_to_id"] = row["in_reply_to_id"]
        return data
