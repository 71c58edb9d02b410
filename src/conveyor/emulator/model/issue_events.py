"""An issue's (or PR's) events as GitHub records them: who added or removed which label, and
who requested or withdrew whose review, when.

Every route that changes an issue's labels reads the names before its change and calls
`record_label_changes` in the same transaction; the routes of a PR's requested reviewers
call `record_review_request`. `GET .../issues/{n}/events` lists them
(`labeled-issue-event`, `unlabeled-issue-event`, `review-requested-issue-event`,
`review-request-removed-issue-event`).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from conveyor.emulator.model.shapes import now_iso, repo_api_url, user_json
from conveyor.emulator.model.store import Store, make_node_id, register_schema

EVENTS_DDL = """
CREATE TABLE IF NOT EXISTS issue_events (
    id INTEGER PRIMARY KEY, node_id TEXT NOT NULL, repo_id INTEGER NOT NULL,
    issue_id INTEGER NOT NULL, actor_id INTEGER NOT NULL, event TEXT NOT NULL,
    label_name TEXT, label_color TEXT, created_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS issue_events_by_issue ON issue_events (issue_id, id);
CREATE TABLE IF NOT EXISTS review_request_events (
    event_id INTEGER PRIMARY KEY, reviewer_id INTEGER NOT NULL);
"""
REVIEW_EVENTS = {"review_requested": "RRE", "review_request_removed": "RRRE"}
register_schema(EVENTS_DDL)


def names_in(conn: sqlite3.Connection, issue_id: int) -> set[str]:
    """The names of the issue's labels as the transaction sees them."""
    rows = conn.execute(
        "SELECT labels.name FROM issue_labels JOIN labels ON labels.id = issue_labels.label_id "
        "WHERE issue_labels.issue_id = ?",
        (issue_id,),
    ).fetchall()
    return {str(row[0]) for row in rows}


def record_label_changes(
    store: Store,
    conn: sqlite3.Connection,
    issue: tuple[int, int],
    actor_id: int,
    before: set[str],
) -> None:
    """A `labeled` event per label the change added and an `unlabeled` per label it removed,
    by `actor_id`, for `issue` (its repository's id, its row id). Inside `tx`."""
    repo_id, issue_id = issue
    after = names_in(conn, issue_id)
    changes = [("labeled", n) for n in sorted(after - before)]
    changes += [("unlabeled", n) for n in sorted(before - after)]
    for event, name in changes:
        color = conn.execute(
            "SELECT color FROM labels WHERE repo_id = ? AND name = ?", (repo_id, name)
        ).fetchone()
        ident = store.next_id(conn)
        conn.execute(
            "INSERT INTO issue_events (id, node_id, repo_id, issue_id, actor_id, event, "
            "label_name, label_color, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                *(ident, make_node_id("LE" if event == "labeled" else "UNLE", ident)),
                *(repo_id, issue_id, actor_id, event, name),
                *(str(color[0]) if color else "ededed", now_iso()),
            ),
        )


def record_review_request(
    store: Store, conn: sqlite3.Connection, issue: tuple[int, int], actor_id: int, *,
    reviewer_id: int, event: str,
) -> None:  # fmt: skip
    """A `review_requested` or `review_request_removed` event: `actor_id` asked `reviewer_id`
    for a review of `issue` (its repository's id, its row id), or withdrew it. Inside `tx`."""
    repo_id, issue_id = issue
    ident = store.next_id(conn)
    conn.execute(
        "INSERT INTO issue_events (id, node_id, repo_id, issue_id, actor_id, event, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        (ident, make_node_id(REVIEW_EVENTS[event], ident), repo_id, issue_id, actor_id, event,
         now_iso()),
    )  # fmt: skip
    conn.execute(
        "INSERT INTO review_request_events (event_id, reviewer_id) VALUES (?, ?)",
        (ident, reviewer_id),
    )


def events_of(store: Store, issue_id: int) -> list[sqlite3.Row]:
    """The issue's events, oldest first, each with its actor's user columns (and a review
    request's reviewer's)."""
    return store.all(
        "SELECT e.*, u.login AS actor_login, u.node_id AS actor_node_id, u.type AS actor_type,"
        " r.id AS reviewer_id, r.login AS reviewer_login, r.node_id AS reviewer_node_id,"
        " r.type AS reviewer_type FROM issue_events e JOIN users u ON u.id = e.actor_id"
        " LEFT JOIN review_request_events q ON q.event_id = e.id"
        " LEFT JOIN users r ON r.id = q.reviewer_id WHERE e.issue_id = ? ORDER BY e.id",
        (issue_id,),
    )


def _user(base: str, row: sqlite3.Row, prefix: str) -> dict[str, Any]:
    user = {"login": row[f"{prefix}_login"], "id": row[f"{prefix}_id"],
            "node_id": row[f"{prefix}_node_id"], "type": row[f"{prefix}_type"]}  # fmt: skip
    return user_json(base, user)


def event_json(base: str, owner: str, name: str, row: sqlite3.Row) -> dict[str, Any]:
    """One `labeled-issue-event`, `unlabeled-issue-event`, `review-requested-issue-event` or
    `review-request-removed-issue-event` (`review_requester` is who acted, as on GitHub)."""
    common = {
        "id": row["id"],
        "node_id": row["node_id"],
        "url": f"{repo_api_url(base, owner, name)}/issues/events/{row['id']}",
        "actor": _user(base, row, "actor"),
        "event": row["event"],
        "commit_id": None,
        "commit_url": None,
        "created_at": row["created_at"],
        "performed_via_github_app": None,
    }
    if row["event"] in REVIEW_EVENTS:
        shown = common | {"review_requester": common["actor"]}
        if row["reviewer_login"] is not None:  # a user's request (a team's names no user)
            shown["requested_reviewer"] = _user(base, row, "reviewer")
        return shown
    return common | {"label": {"name": row["label_name"], "color": row["label_color"]}}
