"""Forks in the store: which repository a fork came from, and which repository a PR's head is in.

Two side tables, so no older data folder needs its tables changed: `forks` (a fork and its
parent) and `pull_heads` (a PR whose head branch lives in another repository of the fork
network; a PR without a row has its head in its own repository).
"""

from __future__ import annotations

import sqlite3

from conveyor.emulator.model.store import Store, register_schema

FORKS_DDL = """
CREATE TABLE IF NOT EXISTS forks (repo_id INTEGER PRIMARY KEY, parent_id INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS forks_by_parent ON forks (parent_id);
CREATE TABLE IF NOT EXISTS pull_heads (
    issue_id INTEGER PRIMARY KEY, head_repo_id INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS pull_heads_by_repo ON pull_heads (head_repo_id);
"""
register_schema(FORKS_DDL)


def record_fork(conn: sqlite3.Connection, repo_id: int, parent_id: int) -> None:
    """Remember that `repo_id` is a fork of `parent_id` (inside `tx`)."""
    conn.execute(
        "INSERT OR REPLACE INTO forks (repo_id, parent_id) VALUES (?, ?)", (repo_id, parent_id)
    )


def parent_of(store: Store, repo_id: int) -> int | None:
    """The repository `repo_id` was forked from, or None."""
    row = store.one("SELECT parent_id FROM forks WHERE repo_id = ?", (repo_id,))
    return None if row is None else int(row["parent_id"])


def fork_owned_by(store: Store, parent_id: int, login: str) -> sqlite3.Row | None:
    """The fork of `parent_id` that `login` owns (with its `owner_login`), or None."""
    return store.one(
        "SELECT r.*, u.login AS owner_login FROM forks f JOIN repos r ON r.id = f.repo_id "
        "JOIN users u ON u.id = r.owner_id WHERE f.parent_id = ? AND lower(u.login) = lower(?)",
        (parent_id, login),
    )


def set_head_repo(conn: sqlite3.Connection, issue_id: int, head_repo_id: int) -> None:
    """The PR whose issue row is `issue_id` has its head in `head_repo_id` (inside `tx`)."""
    conn.execute(
        "INSERT OR REPLACE INTO pull_heads (issue_id, head_repo_id) VALUES (?, ?)",
        (issue_id, head_repo_id),
    )


def head_repo_of(store: Store, issue_id: int, own_repo_id: int) -> int:
    """The repository holding the head branch of the PR whose issue row is `issue_id`."""
    row = store.one("SELECT head_repo_id FROM pull_heads WHERE issue_id = ?", (issue_id,))
    return own_repo_id if row is None else int(row["head_repo_id"])


def pulls_headed_in(store: Store, head_repo_id: int, branch: str) -> list[tuple[int, int]]:
    """The open PRs of other repositories whose head is `branch` of fork `head_repo_id`:
    (their repository's id, their number)."""
    rows = store.all(
        "SELECT i.repo_id, i.number FROM pull_heads h JOIN pulls p ON p.issue_id = h.issue_id "
        "JOIN issues i ON i.id = h.issue_id WHERE h.head_repo_id = ? AND p.head_ref = ? "
        "AND i.state = 'open' ORDER BY i.number",
        (head_repo_id, branch),
    )
    return [(int(row["repo_id"]), int(row["number"])) for row in rows]
