"""Pull requests in the store: their table (beside A1's issues row) and the queries on it.

A PR is an issue row (`is_pull = 1`, sharing the repository's number sequence,
so comments and labels work through the issue routes) plus a `pulls` row that
holds what only PRs have. `head_sha` follows pushes; `base_sha` is recorded
when the PR closes or merges (an open PR reads its base branch live).
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass

from conveyor.emulator.model.store import Store, parse_node_id, register_schema

PULLS_DDL = """
CREATE TABLE IF NOT EXISTS pulls (
    issue_id INTEGER PRIMARY KEY, id INTEGER NOT NULL UNIQUE, repo_id INTEGER NOT NULL,
    head_ref TEXT NOT NULL, head_sha TEXT NOT NULL, base_ref TEXT NOT NULL,
    base_sha TEXT NOT NULL, draft INTEGER NOT NULL DEFAULT 0, merged_at TEXT,
    merged_by_id INTEGER, merge_commit_sha TEXT, mergeable INTEGER, mergeable_state TEXT,
    computed_for TEXT, seen_for TEXT);
CREATE INDEX IF NOT EXISTS pulls_by_head ON pulls (repo_id, head_ref);
"""
register_schema(PULLS_DDL)

# The issue row of a PR carries its node id: `PR_` + the issue row id (see records.py).
NODE_KIND = "PR"

_SELECT = """
SELECT i.id AS issue_id, i.node_id, i.repo_id, i.number, i.title, i.body, i.state, i.state_reason,
       i.author_id, i.locked, i.created_at, i.updated_at, i.closed_at,
       p.id, p.head_ref, p.head_sha, p.base_ref, p.base_sha, p.draft, p.merged_at,
       p.merged_by_id, p.merge_commit_sha, p.mergeable, p.mergeable_state,
       p.computed_for, p.seen_for
FROM pulls p JOIN issues i ON i.id = p.issue_id
"""


@dataclass(frozen=True)
class Pull:
    """One pull request row (issue fields and PR fields together)."""

    issue_id: int
    node_id: str
    repo_id: int
    number: int
    title: str
    body: str | None
    state: str
    author_id: int
    locked: bool
    created_at: str
    updated_at: str
    closed_at: str | None
    id: int
    head_ref: str
    head_sha: str
    base_ref: str
    base_sha: str
    draft: bool
    merged_at: str | None
    merged_by_id: int | None
    merge_commit_sha: str | None
    mergeable: bool | None
    mergeable_state: str | None
    computed_for: str | None
    seen_for: str | None

    @property
    def merged(self) -> bool:
        """Whether the PR was merged."""
        return self.merged_at is not None


def _pull(row: sqlite3.Row | None) -> Pull | None:
    if row is None:
        return None
    values = dict(row)
    values.pop("state_reason", None)
    for flag in ("locked", "draft"):
        values[flag] = bool(values[flag])
    if values["mergeable"] is not None:
        values["mergeable"] = bool(values["mergeable"])
    return Pull(**values)


def get_pull(store: Store, repo_id: int, number: int) -> Pull | None:
    """The PR `number` of a repository, or None (also when that number is a plain issue)."""
    return _pull(store.one(f"{_SELECT} WHERE i.repo_id = ? AND i.number = ?", (repo_id, number)))


def pull_by_node_id(store: Store, node_id: str) -> Pull | None:
    """The PR a `PR_...` node id names, or None."""
    parsed = parse_node_id(node_id)
    if parsed is None or parsed[0] != NODE_KIND:
        return None
    return _pull(store.one(f"{_SELECT} WHERE p.issue_id = ?", (parsed[1],)))


def list_pulls(
    store: Store,
    repo_id: int,
    *,
    state: str = "open",
    head_ref: str | None = None,
    base_ref: str | None = None,
) -> list[Pull]:
    """A repository's PRs in `state` (`open`, `closed` or `all`), newest first."""
    where: list[str] = ["i.repo_id = ?"]
    params: list[object] = [repo_id]
    if state != "all":
        where.append("i.state = ?")
        params.append(state)
    if head_ref is not None:
        where.append("p.head_ref = ?")
        params.append(head_ref)
    if base_ref is not None:
        where.append("p.base_ref = ?")
        params.append(base_ref)
    rows = store.all(f"{_SELECT} WHERE {' AND '.join(where)} ORDER BY i.number DESC", params)
    return [pull for row in rows if (pull := _pull(row)) is not None]


def update_pull(conn: sqlite3.Connection, issue_id: int, **values: object) -> None:
    """Set columns of a `pulls` row (inside a transaction)."""
    columns = ", ".join(f"{name} = ?" for name in values)
    conn.execute(f"UPDATE pulls SET {columns} WHERE issue_id = ?", (*values.values(), issue_id))


CLOSING = re.compile(r"\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s*:?\s+#(\d+)\b", re.IGNORECASE)


def closing_numbers(text: str | None) -> list[int]:
    """The issue numbers a PR body closes (`Closes #3`, `fixes #4`, `Resolved: #5`)."""
    return list(dict.fromkeys(int(n) for n in CLOSING.findall(text or "")))
