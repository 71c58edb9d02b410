"""Issue JSON in bulk (labels, counts and users in a few queries) and label rows of issues."""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from conveyor.emulator.model.assign_rows import milestone_json, milestones_of, people_of
from conveyor.emulator.model.shapes import issue_json, repo_api_url
from conveyor.emulator.model.store import Store, make_node_id

DEFAULT_LABEL_COLOR = "ededed"


def _marks(values: Sequence[Any]) -> str:
    """`?, ?, ?` for an IN list."""
    return ", ".join("?" for _ in values)


def issues_json(
    store: Store, base: str, repo: sqlite3.Row, rows: Sequence[sqlite3.Row]
) -> list[dict[str, Any]]:
    """GitHub issue objects for issue rows of one repository (pull requests included)."""
    if not rows:
        return []
    ids = [row["id"] for row in rows]
    marks = _marks(ids)
    labels: dict[int, list[sqlite3.Row]] = defaultdict(list)
    for label in store.all(
        "SELECT issue_labels.issue_id, labels.* FROM issue_labels JOIN labels "
        f"ON labels.id = issue_labels.label_id WHERE issue_id IN ({marks}) ORDER BY labels.name",
        ids,
    ):
        labels[label["issue_id"]].append(label)
    counts = {
        row["issue_id"]: row["n"]
        for row in store.all(
            f"SELECT issue_id, COUNT(*) AS n FROM comments WHERE issue_id IN ({marks}) "
            "GROUP BY issue_id",
            ids,
        )
    }
    user_ids = {row["author_id"] for row in rows} | {
        row["closed_by_id"] for row in rows if row["closed_by_id"] is not None
    }
    users = {
        row["id"]: row
        for row in store.all(
            f"SELECT * FROM users WHERE id IN ({_marks(list(user_ids))})", list(user_ids)
        )
    }
    collaborators = {
        row["user_id"]
        for row in store.all("SELECT user_id FROM collaborators WHERE repo_id = ?", (repo["id"],))
    }
    subs = {
        row["parent_id"]: (int(row["total"]), int(row["done"] or 0))
        for row in store.all(
            "SELECT parent_id, COUNT(*) AS total, SUM(child.state = 'closed') AS done "
            "FROM sub_issues JOIN issues AS child ON child.id = sub_issues.child_id "
            f"WHERE parent_id IN ({marks}) GROUP BY parent_id",
            ids,
        )
    }
    api = repo_api_url(base, repo["owner_login"], repo["name"])
    parents = {
        row["child_id"]: f"{api}/issues/{row['number']}"
        for row in store.all(
            "SELECT child_id, parent.number FROM sub_issues JOIN issues AS parent "
            f"ON parent.id = sub_issues.parent_id WHERE child_id IN ({marks})",
            ids,
        )
    }
    assignees = people_of(store, "issue_assignees", ids)
    milestones = milestones_of(store, ids)
    out = []
    for row in rows:
        milestone = milestones.get(row["id"])
        author = row["author_id"]
        association = (
            "OWNER"
            if author == repo["owner_id"]
            else "COLLABORATOR"
            if author in collaborators
            else "NONE"
        )
        closed_by = users.get(row["closed_by_id"]) if row["closed_by_id"] is not None else None
        out.append(
            issue_json(
                base,
                repo["owner_login"],
                repo["name"],
                row,
                author=users[author],
                labels=labels.get(row["id"], []),
                comments=counts.get(row["id"], 0),
                association=association,
                closed_by=closed_by,
                sub_issues=subs.get(row["id"], (0, 0)),
                parent_url=parents.get(row["id"]),
                assignees=assignees.get(row["id"], ()),
                milestone=None
                if milestone is None
                else milestone_json(store, base, repo, milestone),
            )
        )
    return out


def association_of(store: Store, repo: sqlite3.Row, user_id: int) -> str:
    """OWNER, COLLABORATOR or NONE: how a user relates to the repository."""
    if user_id == repo["owner_id"]:
        return "OWNER"
    row = store.one(
        "SELECT 1 FROM collaborators WHERE repo_id = ? AND user_id = ?", (repo["id"], user_id)
    )
    return "COLLABORATOR" if row is not None else "NONE"


def ensure_labels(
    store: Store, conn: sqlite3.Connection, repo_id: int, names: Sequence[str]
) -> list[int]:
    """The ids of the named labels, creating missing ones (grey, no description). Inside `tx`."""
    ids = []
    for name in names:
        row = conn.execute(
            "SELECT id FROM labels WHERE repo_id = ? AND name = ?", (repo_id, name)
        ).fetchone()
        if row is None:
            ident = store.next_id(conn)
            conn.execute(
                "INSERT INTO labels (id, repo_id, name, node_id, color, description) "
                "VALUES (?, ?, ?, ?, ?, NULL)",
                (ident, repo_id, name, make_node_id("LA", ident), DEFAULT_LABEL_COLOR),
            )
            ids.append(ident)
        else:
            ids.append(int(row["id"]))
    return ids


def add_issue_labels(
    store: Store, conn: sqlite3.Connection, repo_id: int, issue_id: int, names: Sequence[str]
) -> None:
    """Add labels (created when missing) to an issue. Inside `tx`."""
    for label_id in ensure_labels(store, conn, repo_id, names):
        conn.execute(
            "INSERT OR IGNORE INTO issue_labels (issue_id, label_id) VALUES (?, ?)",
            (issue_id, label_id),
        )


def issue_labels(store: Store, issue_id: int) -> list[sqlite3.Row]:
    """An issue's labels, by name."""
    return store.all(
        "SELECT labels.* FROM issue_labels JOIN labels ON labels.id = issue_labels.label_id "
        "WHERE issue_labels.issue_id = ? ORDER BY labels.name",
        (issue_id,),
    )
