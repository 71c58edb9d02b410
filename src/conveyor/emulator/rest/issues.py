"""Routes for issues: list (with pull requests, as GitHub), get, create and update."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from conveyor.emulator.hooks.events import emit_issue, emit_labels, label_names
from conveyor.emulator.model.assign_rows import assignable, set_milestone, set_people
from conveyor.emulator.model.content_edits import record_edit
from conveyor.emulator.model.etag_cache import conditional
from conveyor.emulator.model.http import (
    ApiError,
    base_url,
    emulator,
    field_int,
    field_str,
    field_str_list,
    json_response,
    page_params,
    paged_response,
    read_object,
    require_user,
    validation_failed,
)
from conveyor.emulator.model.issue_events import names_in, record_label_changes
from conveyor.emulator.model.issue_rows import add_issue_labels, issues_json
from conveyor.emulator.model.records import (
    create_issue_row,
    permission_of,
    require_issue,
    require_repo,
    set_issue_state,
    touch_issue,
)
from conveyor.emulator.model.store import Store

STATE_REASONS = {"completed", "not_planned", "reopened", "duplicate"}
WRITERS = {"write", "maintain", "admin"}


def _choice(request: Request, name: str, allowed: set[str], default: str) -> str:
    """A query parameter from a fixed set; 422 naming the parameter otherwise."""
    value = request.query_params.get(name, default)
    if value not in allowed:
        raise validation_failed(
            "Issue", name, "invalid", f"{name} must be one of {sorted(allowed)}"
        )
    return value


def since_param(request: Request) -> str | None:
    """The `since` parameter as a stored timestamp string; 422 when it is not ISO 8601."""
    raw = request.query_params.get("since")
    if raw is None:
        return None
    try:
        moment = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError as exc:
        raise validation_failed("Issue", "since", "invalid", "since must be ISO 8601") from exc
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


async def list_issues(request: Request) -> Response:
    """A repository's issues and pull requests; a 304 is answered without building the list."""
    state = emulator(request)
    return conditional(request, state.store, state.etags, lambda: _issue_list(request))


def _issue_list(request: Request) -> Response:
    """A repository's issues and pull requests, filtered, sorted and paginated."""
    store = emulator(request).store
    repo = require_repo(store, request.path_params["owner"], request.path_params["repo"])
    state = _choice(request, "state", {"open", "closed", "all"}, "open")
    sort = _choice(request, "sort", {"created", "updated", "comments"}, "created")
    direction = _choice(request, "direction", {"asc", "desc"}, "desc")
    where, params = ["repo_id = ?"], [repo["id"]]
    if state != "all":
        where.append("state = ?")
        params.append(state)
    since = since_param(request)
    if since is not None:
        where.append("updated_at >= ?")
        params.append(since)
    for name in filter(None, request.query_params.get("labels", "").split(",")):
        where.append(
            "EXISTS (SELECT 1 FROM issue_labels JOIN labels ON labels.id = issue_labels.label_id "
            "WHERE issue_labels.issue_id = issues.id AND labels.name = ?)"
        )
        params.append(name.strip())
    creator = request.query_params.get("creator")
    if creator is not None:
        where.append("author_id = (SELECT id FROM users WHERE login = ?)")
        params.append(creator)
    order = {
        "created": "created_at",
        "updated": "updated_at",
        "comments": "(SELECT COUNT(*) FROM comments WHERE comments.issue_id = issues.id)",
    }[sort]
    clause = " AND ".join(where)
    page = page_params(request)
    total_row = store.one(f"SELECT COUNT(*) AS n FROM issues WHERE {clause}", params)
    rows = store.all(
        f"SELECT * FROM issues WHERE {clause} ORDER BY {order} {direction}, id {direction} "
        "LIMIT ? OFFSET ?",
        [*params, page.per_page, page.offset],
    )
    items = issues_json(store, base_url(request), repo, rows)
    return paged_response(request, items, page, int(total_row["n"]) if total_row else 0)


def issue_response(
    store: Store, request: Request, repo: sqlite3.Row, issue_id: int, status: int = 200
) -> Response:
    """The JSON answer for one issue, read fresh."""
    row = store.one("SELECT * FROM issues WHERE id = ?", (issue_id,))
    assert row is not None
    data = issues_json(store, base_url(request), repo, [row])[0]
    headers = {"Location": data["url"]} if status == 201 else None
    return json_response(data, status, headers)


async def get_issue(request: Request) -> Response:
    """One issue (or the issue view of a pull request)."""
    store = emulator(request).store
    repo = require_repo(store, request.path_params["owner"], request.path_params["repo"])
    issue = require_issue(store, repo["id"], request.path_params["issue_number"])
    return issue_response(store, request, repo, issue["id"])


async def create_issue(request: Request) -> Response:
    """Open an issue authored by the token's user; labels only stick for writers."""
    user = require_user(request)
    store = emulator(request).store
    repo = require_repo(store, request.path_params["owner"], request.path_params["repo"])
    body = await read_object(request)
    title = field_str(body, "title", "Issue", required=True)
    assert title is not None
    if not title.strip():
        raise validation_failed("Issue", "title", "missing_field")
    text = field_str(body, "body", "Issue")
    labels = field_str_list(body, "labels", "Issue") or []
    writer = permission_of(store, repo, user["id"]) in WRITERS
    people = assignable(store, repo, field_str_list(body, "assignees", "Issue") or [])
    milestone = _milestone(store, repo, body)
    with store.tx() as conn:
        row = create_issue_row(
            store, conn, repo["id"], title=title, body=text, author_id=user["id"]
        )
        if writer and labels:
            add_issue_labels(store, conn, repo["id"], row["id"], labels)
            record_label_changes(store, conn, (repo["id"], row["id"]), user["id"], set())
        if writer:  # GitHub drops what only people with push access may set
            set_people(conn, "issue_assignees", row["id"], people, replace=True)
            set_milestone(conn, row["id"], milestone)
    emit_issue(request, repo, row["id"], "opened")
    return issue_response(store, request, repo, row["id"], 201)


def _milestone(store: Store, repo: sqlite3.Row, body: dict[str, Any]) -> int | None:
    """The id of the milestone `milestone` numbers (null: none); 422 for an unknown number."""
    number = field_int(body, "milestone", "Issue")
    if number is None:
        return None
    row = store.one(
        "SELECT id FROM milestones WHERE repo_id = ? AND number = ?", (repo["id"], number)
    )
    if row is None:
        raise validation_failed("Issue", "milestone", "invalid")
    return int(row["id"])


def _check_state(body: dict[str, Any]) -> tuple[str | None, str | None]:
    """The requested state and state reason; 422 when either is not one GitHub knows."""
    state = field_str(body, "state", "Issue")
    if state is not None and state not in {"open", "closed"}:
        raise validation_failed("Issue", "state", "invalid", "state must be open or closed")
    reason = field_str(body, "state_reason", "Issue")
    if reason is not None and reason not in STATE_REASONS:
        raise validation_failed(
            "Issue", "state_reason", "invalid", f"one of {sorted(STATE_REASONS)}"
        )
    return state, reason


async def update_issue(request: Request) -> Response:
    """Edit title/body/labels, close (with a reason) or reopen; the author or a writer only."""
    user = require_user(request)
    store = emulator(request).store
    repo = require_repo(store, request.path_params["owner"], request.path_params["repo"])
    issue = require_issue(store, repo["id"], request.path_params["issue_number"])
    body = await read_object(request)
    title = field_str(body, "title", "Issue")
    text = field_str(body, "body", "Issue")
    labels = field_str_list(body, "labels", "Issue")
    people = assignable(store, repo, field_str_list(body, "assignees", "Issue") or [])
    milestone = _milestone(store, repo, body)
    state, reason = _check_state(body)
    writer = permission_of(store, repo, user["id"]) in WRITERS
    if not writer and issue["author_id"] != user["id"]:
        raise ApiError(403, "Must have push access to edit this issue")
    if title is not None and not title.strip():
        raise validation_failed("Issue", "title", "missing_field")
    labels_before = label_names(request, repo, issue["id"])
    with store.tx() as conn:
        if "body" in body:
            record_edit(store, conn, "issue", issue, new=text, editor_id=user["id"])
        sets = {"title": title, "body": text} if "body" in body else {"title": title}
        for column, value in sets.items():
            if value is not None or column == "body":
                conn.execute(f"UPDATE issues SET {column} = ? WHERE id = ?", (value, issue["id"]))
        touch_issue(conn, issue["id"])
        if labels is not None and writer:
            had = names_in(conn, issue["id"])
            conn.execute("DELETE FROM issue_labels WHERE issue_id = ?", (issue["id"],))
            add_issue_labels(store, conn, repo["id"], issue["id"], labels)
            record_label_changes(store, conn, (repo["id"], issue["id"]), user["id"], had)
        if writer:
            _set_people_and_milestone(conn, issue["id"], body, people, milestone)
        if state == "closed" or (state is None and reason and issue["state"] == "closed"):
            set_issue_state(conn, issue["id"], "closed", reason, user["id"])
        elif state == "open":
            set_issue_state(conn, issue["id"], "open", None, None)
    _emit_update(request, repo, issue, {"title": title, "body": text if "body" in body else None})
    emit_labels(request, repo, issue["id"], labels_before, label_names(request, repo, issue["id"]))
    return issue_response(store, request, repo, issue["id"])


def _set_people_and_milestone(
    conn: sqlite3.Connection,
    issue_id: int,
    body: dict[str, Any],
    people: list[sqlite3.Row],
    milestone: int | None,
) -> None:
    """A writer's `assignees` and `milestone`, each only when the request names it."""
    if "assignees" in body:
        set_people(conn, "issue_assignees", issue_id, people, replace=True)
    if "milestone" in body:
        set_milestone(conn, issue_id, milestone)


def _emit_update(
    request: Request, repo: sqlite3.Row, before: sqlite3.Row, asked: dict[str, str | None]
) -> None:
    """`edited` (with what changed from what), then `closed` or `reopened`."""
    after = emulator(request).store.one("SELECT * FROM issues WHERE id = ?", (before["id"],))
    assert after is not None
    changes = {
        field: {"from": before[field] or ""}
        for field, value in asked.items()
        if value is not None and after[field] != before[field]
    }
    if changes:
        emit_issue(request, repo, before["id"], "edited", changes=changes)
    if after["state"] != before["state"]:
        emit_issue(request, repo, before["id"], str(after["state"]).replace("open", "reopened"))


ISSUES = "/repos/{owner}/{repo}/issues"
ROUTES = [
    Route(ISSUES, list_issues, methods=["GET"]),
    Route(ISSUES, create_issue, methods=["POST"]),
    Route(ISSUES + "/{issue_number:int}", get_issue, methods=["GET"]),
    Route(ISSUES + "/{issue_number:int}", update_issue, methods=["PATCH"]),
]
