"""Routes for PR reviews and review comments: list and create, with GitHub's refusals.

`POST .../pulls/{n}/reviews` submits a review (APPROVE, REQUEST_CHANGES, COMMENT) or
leaves it PENDING without an event, with inline comments; `POST .../pulls/{n}/comments`
adds one comment (in a COMMENTED review of its own) or a reply. Both bump the PR's
`updated_at`, as a conversation comment does, and are delivered to webhooks
(`review_events`).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from conveyor.emulator.hooks.review_events import emit_review
from conveyor.emulator.model.http import (
    ApiError,
    base_url,
    current_user,
    field_int,
    field_str,
    json_response,
    page_params,
    paged_response,
    read_object,
    require_user,
    validation_failed,
)
from conveyor.emulator.model.pull_rows import Pull
from conveyor.emulator.model.records import require_repo, touch_issue
from conveyor.emulator.model.review_rows import (
    EVENTS,
    Shaper,
    Where,
    insert_comment,
    insert_review,
    visible_comments,
    visible_reviews,
)
from conveyor.emulator.model.state import EmulatorState
from conveyor.emulator.repos.mergeability import base_sha_of
from conveyor.emulator.repos.pull_shape import RepoView
from conveyor.emulator.repos.review_place import known_commit, place
from conveyor.emulator.rest.issues import since_param
from conveyor.emulator.rest.pulls import repo_context, require_pull

COMMENT = "PullRequestReviewComment"


def _setting(request: Request) -> tuple[EmulatorState, sqlite3.Row, RepoView, Pull, Shaper]:
    state, _, view = repo_context(request)
    repo = require_repo(state.store, view.owner, view.name)  # with its `owner_login`
    pull = require_pull(state, repo, request)
    return state, repo, view, pull, Shaper(state.store, base_url(request), repo, pull.number)


def _issue_row(state: EmulatorState, pull: Pull) -> sqlite3.Row:
    row = state.store.one("SELECT * FROM issues WHERE id = ?", (pull.issue_id,))
    assert row is not None
    return row


def _paged(request: Request, items: list[dict[str, Any]]) -> Response:
    page = page_params(request)
    chosen = items[page.offset : page.offset + page.per_page]
    return paged_response(request, chosen, page, len(items))


async def list_reviews(request: Request) -> Response:
    """`GET .../pulls/{n}/reviews`: oldest first; a pending review only to its author."""
    state, _, _, pull, shaper = _setting(request)
    viewer = current_user(request)
    rows = visible_reviews(state.store, pull.issue_id, viewer["id"] if viewer else None)
    return _paged(request, [shaper.review(row) for row in rows])


async def list_comments(request: Request) -> Response:
    """`GET .../pulls/{n}/comments`: oldest first (`direction=desc` turns it), `since` kept."""
    state, _, _, pull, shaper = _setting(request)
    viewer = current_user(request)
    rows = visible_comments(state.store, pull.issue_id, viewer["id"] if viewer else None)
    since = since_param(request)
    if since is not None:
        rows = [row for row in rows if row["updated_at"] >= since]
    if request.query_params.get("direction") == "desc":
        rows.reverse()
    return _paged(request, [shaper.comment(row) for row in rows])


def _where(
    view: RepoView, pull: Pull, commit: str, item: dict[str, Any], simple: bool
) -> Where | str:
    """A comment's place, or why it has none (as a `validation-error-simple` line or field)."""
    path = item.get("path")
    line = item.get("line")
    start = item.get("start_line")
    side = item.get("side") or "RIGHT"
    if not isinstance(path, str) or not path:
        return "Path can't be blank" if simple else "path"
    if side not in {"RIGHT", "LEFT"}:
        return "Side must be LEFT or RIGHT" if simple else "side"
    if line is not None and (isinstance(line, bool) or not isinstance(line, int) or line < 1):
        return "Line must be a positive integer" if simple else "line"
    if line is None and item.get("subject_type") != "file":
        return "Line can't be blank" if simple else "line"
    if start is not None and (not isinstance(start, int) or line is None or not 0 < start <= line):
        return "Start line must precede line" if simple else "start_line"
    hunk = place(view.bare, base_sha_of(view.bare, pull), commit, path, line, side=side)
    if hunk is None:
        return "Line could not be resolved" if simple else "pull_request_review_thread.line"
    return Where(path, line, start, commit, hunk, side=side)


async def create_review(request: Request) -> Response:
    """`POST .../pulls/{n}/reviews`."""
    user = require_user(request)
    body = await read_object(request)
    state, repo, view, pull, shaper = _setting(request)
    text = field_str(body, "body", "PullRequestReview") or ""
    event = field_str(body, "event", "PullRequestReview")
    if event is not None and event not in EVENTS:
        raise ApiError(422, "Unprocessable Entity", [f"Event {event!r} is not one of {[*EVENTS]}"])
    commit = known_commit(view.bare, field_str(body, "commit_id", "PullRequestReview") or "")
    if body.get("commit_id") is not None and commit is None:
        raise ApiError(422, "Unprocessable Entity", ["Commit could not be found"])
    commit = commit or pull.head_sha
    items = body.get("comments") or []
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise ApiError(422, "Unprocessable Entity", ["Comments must be a list of objects"])
    own = int(user["id"]) == pull.author_id
    if own and event in {"APPROVE", "REQUEST_CHANGES"}:
        verb = "approve" if event == "APPROVE" else "request changes on"
        raise ApiError(422, "Unprocessable Entity", [f"Can not {verb} your own pull request"])
    if not text.strip() and (event == "REQUEST_CHANGES" or (event == "COMMENT" and not items)):
        raise ApiError(422, "Unprocessable Entity", ["Review body can't be blank"])
    places: list[tuple[str, Where]] = []
    for item in items:
        where = _where(view, pull, commit, item, simple=True)
        note = item.get("body")
        if isinstance(where, str) or not isinstance(note, str) or not note.strip():
            why = where if isinstance(where, str) else "Comment body can't be blank"
            raise ApiError(422, "Unprocessable Entity", [why])
        places.append((note, where))
    issue = _issue_row(state, pull)
    status = "PENDING" if event is None else EVENTS[event]
    with state.store.tx() as conn:
        review_id = insert_review(
            conn,
            state.store,
            issue,
            author_id=int(user["id"]),
            body=text,
            state=status,
            commit_id=commit,
        )
        inline = [
            insert_comment(
                conn,
                state.store,
                issue,
                review_id=review_id,
                author_id=int(user["id"]),
                body=note,
                where=where,
            )
            for note, where in places
        ]
        touch_issue(conn, pull.issue_id)
    emit_review(request, repo, view, pull, review_id=review_id, comment_ids=inline)
    row = state.store.one("SELECT * FROM reviews WHERE id = ?", (review_id,))
    assert row is not None
    return json_response(shaper.review(row))


def _reply_place(state: EmulatorState, pull: Pull, parent_id: int) -> Where:
    parent = state.store.one(
        "SELECT * FROM review_comments WHERE id = ? AND issue_id = ?", (parent_id, pull.issue_id)
    )
    if parent is None:
        raise validation_failed(COMMENT, "in_reply_to", "invalid", "in_reply_to is not a comment")
    root = parent["in_reply_to_id"] or parent["id"]
    return Where(
        parent["path"],
        parent["line"],
        parent["start_line"],
        parent["commit_id"],
        parent["diff_hunk"],
        in_reply_to=root,
        side=parent["side"],
    )


async def create_comment(request: Request) -> Response:
    """`POST .../pulls/{n}/comments`: a new thread's first comment, or a reply."""
    user = require_user(request)
    body = await read_object(request)
    state, repo, view, pull, shaper = _setting(request)
    text = field_str(body, "body", COMMENT, required=True)
    assert text is not None
    if not text.strip():
        raise validation_failed(COMMENT, "body", "missing_field")
    parent = field_int(body, "in_reply_to", COMMENT)
    if parent is not None:
        where = _reply_place(state, pull, parent)
    else:
        sha = field_str(body, "commit_id", COMMENT, required=True)
        commit = known_commit(view.bare, sha or "")
        if commit is None:
            raise validation_failed(COMMENT, "commit_id", "invalid", "commit_id is not a commit")
        placed = _where(view, pull, commit, body, simple=False)
        if isinstance(placed, str):
            raise validation_failed(COMMENT, placed, "custom", f"{placed} could not be resolved")
        where = placed
    issue = _issue_row(state, pull)
    with state.store.tx() as conn:
        review_id = insert_review(
            conn,
            state.store,
            issue,
            author_id=int(user["id"]),
            body="",
            state="COMMENTED",
            commit_id=where.commit_id,
        )
        ident = insert_comment(
            conn,
            state.store,
            issue,
            review_id=review_id,
            author_id=int(user["id"]),
            body=text,
            where=where,
        )
        touch_issue(conn, pull.issue_id)
    emit_review(request, repo, view, pull, review_id=review_id, comment_ids=[ident])
    row = state.store.one("SELECT * FROM review_comments WHERE id = ?", (ident,))
    assert row is not None
    data = shaper.comment(row)
    return json_response(data, 201, {"Location": str(data["url"])})


_PULL = "/repos/{owner}/{repo}/pulls/{number:int}"
ROUTES = [
    Route(_PULL + "/reviews", list_reviews, methods=["GET"]),
    Route(_PULL + "/reviews", create_review, methods=["POST"]),
    Route(_PULL + "/comments", list_comments, methods=["GET"]),
    Route(_PULL + "/comments", create_comment, methods=["POST"]),
]
