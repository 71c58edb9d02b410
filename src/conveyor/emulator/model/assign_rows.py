"""Who an issue or PR is assigned to, its milestone, and a PR's requested reviewers.

Their own tables beside the issue rows (a data folder made before them gains them when
opened), read in bulk for lists. Only people who can be assigned (the owner and
collaborators) stick; GitHub ignores the others without an error, and so does this.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from conveyor.emulator.model.shapes import now_iso, repo_api_url, repo_html_url, user_json
from conveyor.emulator.model.store import Store, make_node_id, register_schema

register_schema(
    """
CREATE TABLE IF NOT EXISTS issue_assignees (
    issue_id INTEGER NOT NULL, user_id INTEGER NOT NULL, PRIMARY KEY (issue_id, user_id));
CREATE TABLE IF NOT EXISTS milestones (
    id INTEGER PRIMARY KEY, repo_id INTEGER NOT NULL, number INTEGER NOT NULL,
    node_id TEXT NOT NULL, title TEXT NOT NULL, description TEXT,
    state TEXT NOT NULL DEFAULT 'open', creator_id INTEGER NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
    UNIQUE (repo_id, number), UNIQUE (repo_id, title));
CREATE TABLE IF NOT EXISTS issue_milestones (
    issue_id INTEGER PRIMARY KEY, milestone_id INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS review_requests (
    issue_id INTEGER NOT NULL, user_id INTEGER NOT NULL, PRIMARY KEY (issue_id, user_id));
"""
)


def _marks(values: Sequence[Any]) -> str:
    return ", ".join("?" for _ in values)


def assignable(store: Store, repo: sqlite3.Row, logins: Sequence[str]) -> list[sqlite3.Row]:
    """The users among `logins` that may be assigned here: the owner and collaborators."""
    if not logins:
        return []
    return store.all(
        f"SELECT * FROM users WHERE login IN ({_marks(logins)}) AND (id = ? OR id IN "
        "(SELECT user_id FROM collaborators WHERE repo_id = ?)) ORDER BY login",
        [*logins, repo["owner_id"], repo["id"]],
    )


def set_people(
    conn: sqlite3.Connection, table: str, issue_id: int, users: Sequence[sqlite3.Row], *,
    replace: bool,
) -> None:  # fmt: skip
    """Add `users` to an issue's assignees or review requests (`replace`: instead of the old)."""
    assert table in {"issue_assignees", "review_requests"}
    if replace:
        conn.execute(f"DELETE FROM {table} WHERE issue_id = ?", (issue_id,))
    for user in users:
        conn.execute(
            f"INSERT OR IGNORE INTO {table} (issue_id, user_id) VALUES (?, ?)",
            (issue_id, user["id"]),
        )


def remove_people(
    conn: sqlite3.Connection, table: str, issue_id: int, users: Sequence[sqlite3.Row]
) -> None:
    """Take `users` off an issue's assignees or review requests."""
    assert table in {"issue_assignees", "review_requests"}
    for user in users:
        conn.execute(
            f"DELETE FROM {table} WHERE issue_id = ? AND user_id = ?", (issue_id, user["id"])
        )


def people_of(store: Store, table: str, ids: Sequence[int]) -> dict[int, list[sqlite3.Row]]:
    """Each issue's assignees (or requested reviewers), by login."""
    assert table in {"issue_assignees", "review_requests"}
    found: dict[int, list[sqlite3.Row]] = defaultdict(list)
    if not ids:
        return found
    for row in store.all(
        f"SELECT {table}.issue_id, users.* FROM {table} JOIN users ON users.id = {table}.user_id"
        f" WHERE issue_id IN ({_marks(ids)}) ORDER BY users.login",
        list(ids),
    ):
        found[row["issue_id"]].append(row)
    return found


def create_milestone(
    store: Store, conn: sqlite3.Connection, repo_id: int, title: str, *, creator_id: int,
    description: str | None = None,
) -> sqlite3.Row:  # fmt: skip
    """A new open milestone numbered after the repository's last. Inside `tx`."""
    last = conn.execute(
        "SELECT COALESCE(MAX(number), 0) FROM milestones WHERE repo_id = ?", (repo_id,)
    ).fetchone()[0]
    ident, stamp = store.next_id(conn), now_iso()
    conn.execute(
        "INSERT INTO milestones (id, repo_id, number, node_id, title, description, creator_id,"
        " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (ident, repo_id, last + 1, make_node_id("MI", ident), title, description, creator_id,
         stamp, stamp),
    )  # fmt: skip
    row = conn.execute("SELECT * FROM milestones WHERE id = ?", (ident,)).fetchone()
    assert row is not None
    return row  # type: ignore[no-any-return]


def set_milestone(conn: sqlite3.Connection, issue_id: int, milestone_id: int | None) -> None:
    """Put the issue in a milestone, or take it out (None)."""
    conn.execute("DELETE FROM issue_milestones WHERE issue_id = ?", (issue_id,))
    if milestone_id is not None:
        conn.execute(
            "INSERT INTO issue_milestones (issue_id, milestone_id) VALUES (?, ?)",
            (issue_id, milestone_id),
        )


def milestones_of(store: Store, ids: Sequence[int]) -> dict[int, sqlite3.Row]:
    """Each issue's milestone row, for the issues that have one."""
    if not ids:
        return {}
    return {
        row["issue_id"]: row
        for row in store.all(
            "SELECT issue_milestones.issue_id, milestones.* FROM issue_milestones JOIN"
            " milestones ON milestones.id = issue_milestones.milestone_id"
            f" WHERE issue_milestones.issue_id IN ({_marks(ids)})",
            list(ids),
        )
    }


def milestone_json(store: Store, base: str, repo: sqlite3.Row, row: sqlite3.Row) -> dict[str, Any]:
    """A milestone as GitHub shows it, with its open and closed issue counts."""
    api = f"{repo_api_url(base, repo['owner_login'], repo['name'])}/milestones/{row['number']}"
    html = f"{repo_html_url(base, repo['owner_login'], repo['name'])}/milestone/{row['number']}"
    counts = {
        state: int(n)
        for state, n in store.all(
            "SELECT issues.state, COUNT(*) FROM issue_milestones JOIN issues ON issues.id ="
            " issue_milestones.issue_id WHERE milestone_id = ? GROUP BY issues.state",
            (row["id"],),
        )
    }
    creator = store.one("SELECT * FROM users WHERE id = ?", (row["creator_id"],))
    return {
        "url": api,
        "html_url": html,
        "labels_url": f"{api}/labels",
        "id": row["id"],
        "node_id": row["node_id"],
        "number": row["number"],
        "state": row["state"],
        "title": row["title"],
        "description": row["description"],
        "creator": user_json(base, creator) if creator is not None else None,
        "open_issues": counts.get("open", 0),
        "closed_issues": counts.get("closed", 0),
        "created_at": row["created_at"],
        "updated_at": row["updated_at"],
        "closed_at": None,
        "due_on": None,
    }
