"""The edit history of issue bodies and comments, as GitHub keeps it (`userContentEdits`).

GitHub records an edit of an issue's body or a comment with who made it and the text it
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

Target = Literal["issue", "comment"]

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
    """Record `editor_id`'s change of `row`'s body (an issue or comment row) to `new`.

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
        created = {"editor_id": row["author_id"], "at": row["created_at"], "text": old}
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
