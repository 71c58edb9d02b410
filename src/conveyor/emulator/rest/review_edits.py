"""Editing what a review said: `PATCH .../pulls/comments/{id}` (an inline comment) and
`PUT .../pulls/{n}/reviews/{id}` (a review's body).

As GitHub: the author may edit their own, and anyone with write access anyone's; a pending
review and its comments are seen (so edited) only by their author, 404 to others. Each
change of text is kept with who made it (`userContentEdits`, `model/content_edits.py`),
as an issue's or a comment's is; the PR's `updated_at` moves. No webhook is sent for
these edits.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from conveyor.emulator.model.content_edits import record_edit
from conveyor.emulator.model.http import (
    ApiError,
    base_url,
    emulator,
    field_str,
    json_response,
    not_found,
    read_object,
    require_user,
)
from conveyor.emulator.model.records import permission_of, require_repo, touch_issue
from conveyor.emulator.model.review_rows import Shaper
from conveyor.emulator.model.shapes import now_iso
from conveyor.emulator.model.store import Store
from conveyor.emulator.rest.issues import WRITERS


def _check_editor(
    store: Store, repo: sqlite3.Row, row: sqlite3.Row, pending: bool, user: sqlite3.Row
) -> None:
    """A 404 for someone else's pending text, a 403 unless the user wrote it or may write."""
    if row["author_id"] == user["id"]:
        return
    if pending:
        raise not_found()
    if permission_of(store, repo, user["id"]) not in WRITERS:
        raise ApiError(403, "Must have push access to edit others' review comments")


async def _edit_of(
    request: Request,
    schema: str,
    query: str,
    args: Callable[[int, dict[str, Any]], tuple[object, ...]],
) -> tuple[sqlite3.Row, Store, sqlite3.Row, sqlite3.Row, str]:
    """An edit's editor, store, repository, edited row (`query` on `args`; 404 when
    missing) and new text (the body's `body`, required; 422 naming `schema`)."""
    user = require_user(request)
    body = await read_object(request)
    store = emulator(request).store
    params = request.path_params
    repo = require_repo(store, params["owner"], params["repo"])
    row = store.one(query, args(int(repo["id"]), params))
    if row is None:
        raise not_found()
    text = field_str(body, "body", schema, required=True)
    assert text is not None
    return user, store, repo, row, text


def _number_of(store: Store, issue_id: int) -> int:
    row = store.one("SELECT number FROM issues WHERE id = ?", (issue_id,))
    assert row is not None
    return int(row["number"])


async def edit_review_comment(request: Request) -> Response:
    """`PATCH .../pulls/comments/{comment_id}`: a new body for an inline comment."""
    user, store, repo, row, text = await _edit_of(
        request,
        "PullRequestReviewComment",
        "SELECT c.*, r.state AS review_state FROM review_comments c "
        "JOIN reviews r ON r.id = c.review_id WHERE c.id = ? AND c.repo_id = ?",
        lambda repo_id, params: (params["comment_id"], repo_id),
    )
    _check_editor(store, repo, row, row["review_state"] == "PENDING", user)
    with store.tx() as conn:
        record_edit(store, conn, "review_comment", row, new=text, editor_id=int(user["id"]))
        conn.execute(
            "UPDATE review_comments SET body = ?, updated_at = ? WHERE id = ?",
            (text, now_iso(), row["id"]),
        )
        touch_issue(conn, row["issue_id"])
    fresh = store.one("SELECT * FROM review_comments WHERE id = ?", (row["id"],))
    assert fresh is not None
    shaper = Shaper(store, base_url(request), repo, _number_of(store, int(row["issue_id"])))
    return json_response(shaper.comment(fresh))


async def edit_review(request: Request) -> Response:
    """`PUT .../pulls/{n}/reviews/{review_id}`: a new body for a review (422 when blank)."""
    user, store, repo, row, text = await _edit_of(
        request,
        "PullRequestReview",
        "SELECT r.* FROM reviews r JOIN issues i ON i.id = r.issue_id "
        "WHERE r.id = ? AND r.repo_id = ? AND i.number = ?",
        lambda repo_id, params: (params["review_id"], repo_id, params["number"]),
    )
    if not text.strip():
        raise ApiError(422, "Unprocessable Entity", ["Review body can't be blank"])
    _check_editor(store, repo, row, row["state"] == "PENDING", user)
    with store.tx() as conn:
        record_edit(store, conn, "review", row, new=text, editor_id=int(user["id"]))
        conn.execute("UPDATE reviews SET body = ? WHERE id = ?", (text, row["id"]))
        touch_issue(conn, row["issue_id"])
    fresh = store.one("SELECT * FROM reviews WHERE id = ?", (row["id"],))
    assert fresh is not None
    shaper = Shaper(store, base_url(request), repo, int(request.path_params["number"]))
    return json_response(shaper.review(fresh))


_REPO = "/repos/{owner}/{repo}/pulls"
ROUTES = [
    Route(_REPO + "/comments/{comment_id:int}", edit_review_comment, methods=["PATCH"]),
    Route(_REPO + "/{number:int}/reviews/{review_id:int}", edit_review, methods=["PUT"]),
]
