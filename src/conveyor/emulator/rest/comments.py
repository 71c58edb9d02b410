"""Routes for issue and pull-request conversation comments: list, create, get, edit, delete."""

from __future__ import annotations

import sqlite3
import time

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from conveyor.emulator.hooks.events import emit_comment
from conveyor.emulator.model.content_edits import record_edit
from conveyor.emulator.model.http import (
    ApiError,
    base_url,
    emulator,
    field_str,
    json_response,
    no_content,
    not_found,
    page_params,
    paged_response,
    read_object,
    require_user,
)
from conveyor.emulator.model.issue_rows import association_of
from conveyor.emulator.model.records import (
    permission_of,
    require_issue,
    require_repo,
    touch_issue,
)
from conveyor.emulator.model.shapes import comment_json, now_iso
from conveyor.emulator.model.store import Store, make_node_id
from conveyor.emulator.rest.issues import WRITERS, since_param


def _comment_json(
    store: Store,
    base: str,
    repo: sqlite3.Row,
    issue: sqlite3.Row,
    row: sqlite3.Row,
    *,
    authors: dict[int, tuple[sqlite3.Row, str]],
) -> dict[str, object]:
    """One comment's JSON (each author and its association looked up once per list); a PR's
    comment's `html_url` is on its `/pull/` page, as GitHub's."""
    if row["author_id"] not in authors:
        author = store.one("SELECT * FROM users WHERE id = ?", (row["author_id"],))
        assert author is not None
        authors[row["author_id"]] = (author, association_of(store, repo, row["author_id"]))
    author, association = authors[row["author_id"]]
    owner, name = repo["owner_login"], repo["name"]
    number, kind = issue["number"], "pull" if issue["is_pull"] else "issues"
    return comment_json(
        base, owner, name, number, row, author=author, association=association, page=kind
    )


async def list_comments(request: Request) -> Response:
    """An issue's (or PR's) comments, oldest first; new ones show up after `list_lag_ms`."""
    state = emulator(request)
    store = state.store
    repo = require_repo(store, request.path_params["owner"], request.path_params["repo"])
    issue = require_issue(store, repo["id"], request.path_params["issue_number"])
    where, params = ["issue_id = ?"], [issue["id"]]
    if state.knobs.list_lag_ms > 0:
        where.append("created_ms <= ?")
        params.append(int(time.time() * 1000) - state.knobs.list_lag_ms)
    since = since_param(request)
    if since is not None:
        where.append("updated_at >= ?")
        params.append(since)
    clause = " AND ".join(where)
    page = page_params(request)
    total = store.one(f"SELECT COUNT(*) AS n FROM comments WHERE {clause}", params)
    rows = store.all(
        f"SELECT * FROM comments WHERE {clause} ORDER BY id LIMIT ? OFFSET ?",
        [*params, page.per_page, page.offset],
    )
    base = base_url(request)
    authors: dict[int, tuple[sqlite3.Row, str]] = {}
    items = [_comment_json(store, base, repo, issue, row, authors=authors) for row in rows]
    return paged_response(request, items, page, int(total["n"]) if total else 0)


async def create_comment(request: Request) -> Response:
    """Comment on an issue or PR as the token's user; bumps the issue's `updated_at`."""
    user = require_user(request)
    store = emulator(request).store
    repo = require_repo(store, request.path_params["owner"], request.path_params["repo"])
    issue = require_issue(store, repo["id"], request.path_params["issue_number"])
    body = await read_object(request)
    text = field_str(body, "body", "IssueComment", required=True)
    assert text is not None
    if issue["locked"] and permission_of(store, repo, user["id"]) not in WRITERS:
        raise ApiError(403, "Unable to create comment because issue is locked.")
    now = now_iso()
    with store.tx() as conn:
        ident = store.next_id(conn)
        conn.execute(
            "INSERT INTO comments (id, repo_id, issue_id, node_id, author_id, body, created_at, "
            "updated_at, created_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                ident,
                repo["id"],
                issue["id"],
                make_node_id("IC", ident),
                user["id"],
                text,
                now,
                now,
                int(time.time() * 1000),
            ),
        )
        touch_issue(conn, issue["id"])
    emit_comment(request, repo, issue["id"], "created", _comment_data(store, request, repo, ident))
    return _one(store, request, repo, ident, 201)


def _comment_data(
    store: Store, request: Request, repo: sqlite3.Row, comment_id: int
) -> dict[str, object]:
    row = store.one("SELECT * FROM comments WHERE id = ?", (comment_id,))
    assert row is not None
    issue = store.one("SELECT number, is_pull FROM issues WHERE id = ?", (row["issue_id"],))
    assert issue is not None
    return _comment_json(store, base_url(request), repo, issue, row, authors={})


def _one(
    store: Store, request: Request, repo: sqlite3.Row, comment_id: int, status: int = 200
) -> Response:
    """The JSON answer for one comment."""
    data = _comment_data(store, request, repo, comment_id)
    headers = {"Location": str(data["url"])} if status == 201 else None
    return json_response(data, status, headers)


def _target(request: Request) -> tuple[Store, sqlite3.Row, sqlite3.Row]:
    """The store, the repository and the comment named in the path (404 when absent)."""
    store = emulator(request).store
    repo = require_repo(store, request.path_params["owner"], request.path_params["repo"])
    row = store.one(
        "SELECT * FROM comments WHERE id = ? AND repo_id = ?",
        (request.path_params["comment_id"], repo["id"]),
    )
    if row is None:
        raise not_found()
    return store, repo, row


def _check_editor(store: Store, repo: sqlite3.Row, row: sqlite3.Row, user: sqlite3.Row) -> None:
    """A 403 unless the user wrote the comment or may write to the repository."""
    if row["author_id"] != user["id"] and permission_of(store, repo, user["id"]) not in WRITERS:
        raise ApiError(403, "Must have push access to edit or delete others' comments")


async def get_comment(request: Request) -> Response:
    """One comment by id."""
    store, repo, row = _target(request)
    return _one(store, request, repo, row["id"])


async def edit_comment(request: Request) -> Response:
    """Replace a comment's body; the id stays, `updated_at` moves, and so does the issue's;
    the edit is kept with who made it (GraphQL's `userContentEdits`)."""
    user = require_user(request)
    store, repo, row = _target(request)
    body = await read_object(request)
    text = field_str(body, "body", "IssueComment", required=True)
    _check_editor(store, repo, row, user)
    with store.tx() as conn:
        record_edit(store, conn, "comment", row, new=text, editor_id=user["id"])
        conn.execute(
            "UPDATE comments SET body = ?, updated_at = ? WHERE id = ?",
            (text, now_iso(), row["id"]),
        )
        touch_issue(conn, row["issue_id"])
    comment = _comment_data(store, request, repo, row["id"])
    if text != row["body"]:
        changes = {"body": {"from": row["body"]}}
        emit_comment(request, repo, row["issue_id"], "edited", comment, changes=changes)
    return _one(store, request, repo, row["id"])


async def delete_comment(request: Request) -> Response:
    """Delete a comment (204)."""
    user = require_user(request)
    store, repo, row = _target(request)
    _check_editor(store, repo, row, user)
    comment = _comment_data(store, request, repo, row["id"])
    with store.tx() as conn:
        conn.execute("DELETE FROM comments WHERE id = ?", (row["id"],))
        touch_issue(conn, row["issue_id"])
    emit_comment(request, repo, row["issue_id"], "deleted", comment)
    return no_content()


ISSUES = "/repos/{owner}/{repo}/issues"
ROUTES = [
    Route(ISSUES + "/{issue_number:int}/comments", list_comments, methods=["GET"]),
    Route(ISSUES + "/{issue_number:int}/comments", create_comment, methods=["POST"]),
    Route(ISSUES + "/comments/{comment_id:int}", get_comment, methods=["GET"]),
    Route(ISSUES + "/comments/{comment_id:int}", edit_comment, methods=["PATCH"]),
    Route(ISSUES + "/comments/{comment_id:int}", delete_comment, methods=["DELETE"]),
]
