"""The `Comment` interface's fields GitHub answers on an issue, a comment or a review: its
ids, body and author, and the edit fields `lastEditedAt`, `editor`, `includesCreatedEdit` and
`userContentEdits` (newest first, each with its `editor`, `editedAt` and `diff`: the whole
text that edit left)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from conveyor.emulator.graphql.paging import JSON, page, window
from conveyor.emulator.model.content_edits import Target, edits_of, last_edit
from conveyor.emulator.model.issue_rows import association_of
from conveyor.emulator.model.store import Store

Actor = Callable[[int | None], JSON | None]


def comment_fields(
    store: Store, actor: Actor, repo: Any, row: Any, *, typename: str, target: Target
) -> JSON:
    """The `Comment` interface's fields of `row` (an issue, a comment, a review, an inline
    comment): its ids, body, author and the author's association, and the edit fields."""
    return {
        "__typename": typename,
        "id": row["node_id"],
        "databaseId": row["id"],
        "fullDatabaseId": str(row["id"]),
        "body": row["body"] or "",
        "author": actor(row["author_id"]),
        "authorAssociation": association_of(store, repo, row["author_id"]),
        **edit_fields(store, actor, target, int(row["id"])),
    }


def edit_fields(store: Store, actor: Actor, target: Target, target_id: int) -> JSON:
    """The edit fields of the issue or comment `target_id`, resolved when asked for."""
    newest = last_edit(store, target, target_id)
    return {
        "lastEditedAt": newest["edited_at"] if newest is not None else None,
        "editor": (lambda _i: actor(newest["editor_id"])) if newest is not None else None,
        "includesCreatedEdit": newest is not None,
        "userContentEdits": lambda _i, first=None, after=None, last=None, **_: _edits(
            store, actor, target, target_id, first=first, after=after, last=last
        ),
    }


def _edits(
    store: Store,
    actor: Actor,
    target: Target,
    target_id: int,
    *,
    first: int | None,
    after: str | None,
    last: int | None,
) -> JSON:
    """One page of the history, newest first: a cursor names the last edit shown."""
    start = window("userContentEdits", first, after, last)
    assert first is not None
    every = edits_of(store, target, target_id)
    past = [r for r in every if r["id"] < start] if start else every
    rows = past[: first + 1]
    nodes = [_edit_node(actor, r) for r in rows]
    return page([r["id"] for r in rows], first, nodes) | {"totalCount": len(every)}


def _edit_node(actor: Actor, row: Any) -> JSON:
    return {
        "__typename": "UserContentEdit",
        "id": row["node_id"],
        "createdAt": row["created_at"],
        "updatedAt": row["created_at"],
        "editedAt": row["edited_at"],
        "editor": actor(row["editor_id"]),
        "diff": row["diff"],
        "deletedAt": None,
        "deletedBy": None,
    }
