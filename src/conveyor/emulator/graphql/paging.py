"""What the emulator's GraphQL connections share: GitHub's cursors, `first`/`after` windows,
pages with `pageInfo`, and the errors GitHub gives for what it refuses."""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from typing import Any

PAGE_LIMIT = 100
CURSOR_PREFIX = "cursor:v2:"

JSON = dict[str, Any]


class NotFoundError(Exception):
    """Nothing by that name (the endpoint reports GitHub's `NOT_FOUND` type)."""


class ArgumentError(Exception):
    """A connection's arguments GitHub refuses (a missing or too large `first`), with the
    error `type` GitHub gives it."""

    def __init__(self, message: str, kind: str = "INVALID_CURSOR_ARGUMENTS") -> None:
        super().__init__(message)
        self.kind = kind


def cursor(row_id: int) -> str:
    """An opaque cursor for the row with `row_id`."""
    return base64.b64encode(f"{CURSOR_PREFIX}{row_id}".encode()).decode()


def after_id(after: str | None) -> int:
    if after is None:
        return 0
    try:
        text = base64.b64decode(after.encode(), validate=True).decode()
        return int(text.removeprefix(CURSOR_PREFIX)) if text.startswith(CURSOR_PREFIX) else -1
    except ValueError:
        return -1


def window(connection: str, first: int | None, after: str | None, last: int | None) -> int:
    """The row id the page starts after; GitHub's errors for arguments it refuses."""
    if last is not None:
        raise ArgumentError(
            f"the embedded forge pages `{connection}` forwards only (`first`)", "UNSUPPORTED"
        )
    if first is None:
        raise ArgumentError(
            f"You must provide a `first` or `last` value to properly paginate the "
            f"`{connection}` connection.",
            "MISSING_PAGINATION_BOUNDARIES",
        )
    if not 1 <= first <= PAGE_LIMIT:
        raise ArgumentError(
            f"Requesting {first} records on the `{connection}` connection exceeds the `first` "
            f"limit of {PAGE_LIMIT} records.",
            "EXCESSIVE_PAGINATION",
        )
    start = after_id(after)
    if start < 0:
        raise ArgumentError(f"`{after}` does not appear to be a valid cursor.")
    return start


def page(ids: Sequence[int], first: int, nodes: list[JSON]) -> JSON:
    """One page of a connection: `ids` are the rows' ids, one more than `first` when there is
    a next page; `nodes` their GraphQL objects in the same order."""
    shown = ids[:first]
    return {
        "nodes": nodes[:first],
        "edges": [{"cursor": cursor(i), "node": n} for i, n in zip(shown, nodes, strict=False)],
        "pageInfo": {
            "hasNextPage": len(ids) > first,
            "hasPreviousPage": False,
            "startCursor": cursor(shown[0]) if shown else None,
            "endCursor": cursor(shown[-1]) if shown else None,
        },
    }


def rows_page(
    connection: str,
    every: Sequence[Any],
    node: Callable[[Any], JSON],
    *,
    first: int | None,
    after: str | None,
    last: int | None,
) -> JSON:
    """One page of `connection` over `every` row (by ascending `id`) after the cursor `after`,
    each row shown as `node(row)`, with `totalCount`."""
    start = window(connection, first, after, last)
    assert first is not None
    past = [r for r in every if r["id"] > start][: first + 1]
    nodes = [node(r) for r in past]
    return page([r["id"] for r in past], first, nodes) | {"totalCount": len(every)}
