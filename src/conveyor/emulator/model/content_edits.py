"""The edit history of issue and PR bodies, comments, review bodies and review comments, as
GitHub keeps it (`userContentEdits`).

GitHub records an edit of any of them (each is a GraphQL `Comment`) with who made it and the text it
left (GraphQL's `UserContentEdit`: `editor`, `editedAt`, `diff`). The first edit also
records the text as created, by its author at its creation (`includesCreatedEdit`), so
the history holds every version. `lastEditedAt` and `editor` are the newest edit's; a
text never edited has no history and a null `lastEditedAt`. REST says none of this.
A write that leaves the text as it was records nothing.
"""

from __future__ import annotations

import sqlite3
from typing import Literal

from conveyor.emulator.model.shapes import now_iso
from conveyor.emulator.model.store import Store, make_node_id, register_schema

# "issue" is an issue's or a PR's body (a PR's body lives on its issue row).
Target = Literal["issue", "comment", "review", "review_comment"]

register_schema("""
CREATE TABLE IF NOT EXISTS content_edits (
    id INTEGER PRIMARY KEY, target TEXT NOT NULL, target_id INTEGER NOT NULL,
    node_id TEXT NOT NULL, editor_id INTEGER, edited_at TEXT NOT NULL, diff TEXT,
    created_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS content_edits_by_target ON content_edits (target, target_id, id);
""")


def record_edit(
    store: Store,
    conn: sqlite3.Connection,
    target: Target,
    row: sqlite3.Row,
    *,
    new: str | None,
    editor_id: int,
) -> None:
    """Record `editor_id`'s change of `row`'s body (an issue, comment, review or review
    comment row) to `new`.

    Call inside the transaction that writes the new text, before it does (`row` is the
    row as it was).
    """
    old = row["body"] or ""
    if (new or "") == old:
        return
    now = now_iso()
    known = conn.execute(
        "SELECT COUNT(*) FROM content_edits WHERE target = ? AND target_id = ?",
        (target, row["id"]),
    ).fetchone()[0]
    if not known:
        # A review has no creation time of its own: it was written when it was submitted.
        fields = dict(row)
        born = fields["created_at"] if "created_at" in fields else fields["submitted_at"]
        created = {"editor_id": row["author_id"], "at": born or now, "text": old}
        _insert(store, conn, target, row["id"], **created)
    _insert(store, conn, target, row["id"], editor_id=editor_id, at=now, text=new or "")


def _insert(
    store: Store,
    conn: sqlite3.Connection,
    target: Target,
    target_id: int,
    *,
    editor_id: int | None,
    at: str,
    text: str,
) -> None:
    ident = store.next_id(conn)
    conn.execute(
        "INSERT INTO content_edits (id, target, target_id, node_id, editor_id, edited_at, diff, "
        "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (ident, target, target_id, make_node_id("UCE", ident), editor_id, at, text, now_iso()),
    )


def edits_of(store: Store, target: Target, target_id: int) -> list[sqlite3.Row]:
    """Every recorded version of the text, newest first (GitHub's order)."""
    return store.all(
        "SELECT * FROM content_edits WHERE target = ? AND target_id = ? ORDER BY id DESC",
        (target, target_id),
    )


def last_edit(store: Store, target: Target, target_id: int) -> sqlite3.Row | None:
    """The newest edit, or None for a text never edited."""
    return store.one(
        "SELECT * FROM content_edits WHERE target = ? AND target_id = ? ORDER BY id DESC LIMIT 1",
        (target, target_id),
    )
