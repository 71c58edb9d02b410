"""Routes for sub-issues: add (by the sub-issue's id, not number), list, remove, parent, order."""

from __future__ import annotations

import sqlite3

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from conveyor.emulator.model.http import (
    base_url,
    emulator,
    field_int,
    json_response,
    not_found,
    page_params,
    paged_response,
    read_object,
    require_user,
    validation_failed,
)
from conveyor.emulator.model.issue_rows import issues_json
from conveyor.emulator.model.records import require_issue, require_push, require_repo, touch_issue
from conveyor.emulator.model.store import Store


def _parent(request: Request) -> tuple[Store, sqlite3.Row, sqlite3.Row]:
    """The store, the repository and the issue of the path."""
    store = emulator(request).store
    repo = require_repo(store, request.path_params["owner"], request.path_params["repo"])
    return store, repo, require_issue(store, repo["id"], request.path_params["issue_number"])


def _answer(
    request: Request, store: Store, repo: sqlite3.Row, issue_id: int, status: int = 200
) -> Response:
    """One issue's JSON, read fresh."""
    row = store.one("SELECT * FROM issues WHERE id = ?", (issue_id,))
    assert row is not None
    data = issues_json(store, base_url(request), repo, [row])[0]
    return json_response(data, status, {"Location": data["url"]} if status == 201 else None)


def _child(store: Store, repo: sqlite3.Row, ident: int) -> sqlite3.Row:
    """The issue with this id in the repository; 404 when there is none."""
    row = store.one("SELECT * FROM issues WHERE id = ? AND repo_id = ?", (ident, repo["id"]))
    if row is None:
        raise not_found()
    return row


async def add_sub_issue(request: Request) -> Response:
    """Make the issue with `sub_issue_id` a sub-issue of this one (201, the sub-issue)."""
    user = require_user(request)
    store, repo, parent = _parent(request)
    require_push(store, repo, user)
    body = await read_object(request)
    ident = field_int(body, "sub_issue_id", "SubIssue", required=True)
    assert ident is not None
    replace = body.get("replace_parent", False) is True
    child = _child(store, repo, ident)
    if child["id"] == parent["id"] or child["is_pull"]:
        raise validation_failed("SubIssue", "sub_issue_id", "invalid", "not a possible sub-issue")
    with store.tx() as conn:
        current = conn.execute(
            "SELECT parent_id FROM sub_issues WHERE child_id = ?", (child["id"],)
        ).fetchone()
        if current is not None and not replace:
            raise validation_failed(
                "SubIssue", "sub_issue_id", "invalid", "the sub-issue already has a parent"
            )
        position = conn.execute(
            "SELECT COALESCE(MAX(position), 0) + 1 FROM sub_issues WHERE parent_id = ?",
            (parent["id"],),
        ).fetchone()[0]
        conn.execute(
            "INSERT OR REPLACE INTO sub_issues (parent_id, child_id, position) VALUES (?, ?, ?)",
            (parent["id"], child["id"], position),
        )
        touch_issue(conn, parent["id"])
        touch_issue(conn, child["id"])
    return _answer(request, store, repo, child["id"], 201)


async def list_sub_issues(request: Request) -> Response:
    """The issue's sub-issues in priority order, paginated."""
    store, repo, parent = _parent(request)
    page = page_params(request)
    total = store.one("SELECT COUNT(*) AS n FROM sub_issues WHERE parent_id = ?", (parent["id"],))
    rows = store.all(
        "SELECT issues.* FROM sub_issues JOIN issues ON issues.id = sub_issues.child_id "
        "WHERE parent_id = ? ORDER BY position LIMIT ? OFFSET ?",
        (parent["id"], page.per_page, page.offset),
    )
    items = issues_json(store, base_url(request), repo, rows)
    return paged_response(request, items, page, int(total["n"]) if total else 0)


async def remove_sub_issue(request: Request) -> Response:
    """Detach a sub-issue (200, the former sub-issue); 404 when it is not one of this issue's."""
    user = require_user(request)
    store, repo, parent = _parent(request)
    require_push(store, repo, user)
    body = await read_object(request)
    ident = field_int(body, "sub_issue_id", "SubIssue", required=True)
    with store.tx() as conn:
        gone = conn.execute(
            "DELETE FROM sub_issues WHERE parent_id = ? AND child_id = ?", (parent["id"], ident)
        ).rowcount
        if not gone:
            raise not_found()
        touch_issue(conn, parent["id"])
        assert ident is not None
        touch_issue(conn, ident)
    assert ident is not None
    return _answer(request, store, repo, ident)


async def get_parent(request: Request) -> Response:
    """The issue's parent issue; 404 when it has none."""
    store, repo, child = _parent(request)
    row = store.one("SELECT parent_id FROM sub_issues WHERE child_id = ?", (child["id"],))
    if row is None:
        raise not_found()
    return _answer(request, store, repo, row["parent_id"])


async def reprioritize(request: Request) -> Response:
    """Move a sub-issue before or after a sibling (200, the parent issue)."""
    user = require_user(request)
    store, repo, parent = _parent(request)
    require_push(store, repo, user)
    body = await read_object(request)
    ident = field_int(body, "sub_issue_id", "SubIssue", required=True)
    after = field_int(body, "after_id", "SubIssue")
    before = field_int(body, "before_id", "SubIssue")
    if (after is None) == (before is None):
        raise validation_failed("SubIssue", "after_id", "invalid", "give after_id or before_id")
    order = [
        int(row["child_id"])
        for row in store.all(
            "SELECT child_id FROM sub_issues WHERE parent_id = ? ORDER BY position", (parent["id"],)
        )
    ]
    anchor = after if after is not None else before
    if ident not in order or anchor not in order:
        raise not_found()
    assert ident is not None
    order.remove(ident)
    at = order.index(anchor) + (1 if after is not None else 0)
    order.insert(at, ident)
    with store.tx() as conn:
        for position, child in enumerate(order, start=1):
            conn.execute("UPDATE sub_issues SET position = ? WHERE child_id = ?", (position, child))
        touch_issue(conn, parent["id"])
    return _answer(request, store, repo, parent["id"])


ISSUE = "/repos/{owner}/{repo}/issues/{issue_number:int}"
ROUTES = [
    Route(ISSUE + "/sub_issues", list_sub_issues, methods=["GET"]),
    Route(ISSUE + "/sub_issues", add_sub_issue, methods=["POST"]),
    Route(ISSUE + "/sub_issue", remove_sub_issue, methods=["DELETE"]),
    Route(ISSUE + "/sub_issues/priority", reprioritize, methods=["PATCH"]),
    Route(ISSUE + "/parent", get_parent, methods=["GET"]),
]
