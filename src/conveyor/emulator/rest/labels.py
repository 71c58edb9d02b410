"""Routes for a repository's labels and an issue's labels; every issue label change bumps it."""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from conveyor.emulator.hooks.events import emit_labels, label_names
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
    read_json,
    read_object,
    require_user,
    validation_failed,
)
from conveyor.emulator.model.issue_events import names_in, record_label_changes
from conveyor.emulator.model.issue_rows import DEFAULT_LABEL_COLOR, add_issue_labels, issue_labels
from conveyor.emulator.model.records import require_issue, require_push, require_repo, touch_issue
from conveyor.emulator.model.shapes import label_json
from conveyor.emulator.model.store import Store, make_node_id

COLOR = re.compile(r"[0-9a-fA-F]{6}")


def _repo(request: Request) -> tuple[Store, sqlite3.Row]:
    """The store and the repository of the path."""
    store = emulator(request).store
    return store, require_repo(store, request.path_params["owner"], request.path_params["repo"])


def _label(store: Store, repo: sqlite3.Row, name: str) -> sqlite3.Row:
    """The repository's label NAME (case-insensitive), or a 404."""
    row = store.one("SELECT * FROM labels WHERE repo_id = ? AND name = ?", (repo["id"], name))
    if row is None:
        raise not_found()
    return row


def _color(body: dict[str, Any], *, default: str | None) -> str | None:
    """The `color` field without `#`; 422 when it is not six hex digits."""
    color = field_str(body, "color", "Label")
    if color is None:
        return default
    color = color.removeprefix("#")
    if not COLOR.fullmatch(color):
        raise validation_failed("Label", "color", "invalid")
    return color.lower()


def _json(request: Request, repo: sqlite3.Row, label: sqlite3.Row) -> dict[str, Any]:
    """A label's JSON."""
    return label_json(base_url(request), repo["owner_login"], repo["name"], label)


async def list_labels(request: Request) -> Response:
    """The repository's labels by name, paginated."""
    store, repo = _repo(request)
    page = page_params(request)
    total = store.one("SELECT COUNT(*) AS n FROM labels WHERE repo_id = ?", (repo["id"],))
    rows = store.all(
        "SELECT * FROM labels WHERE repo_id = ? ORDER BY name LIMIT ? OFFSET ?",
        (repo["id"], page.per_page, page.offset),
    )
    items = [_json(request, repo, row) for row in rows]
    return paged_response(request, items, page, int(total["n"]) if total else 0)


async def create_label(request: Request) -> Response:
    """Create a label; 422 `already_exists` when the name is taken."""
    user = require_user(request)
    store, repo = _repo(request)
    require_push(store, repo, user)
    body = await read_object(request)
    name = field_str(body, "name", "Label", required=True)
    assert name is not None
    if not name.strip():
        raise validation_failed("Label", "name", "missing_field")
    color = _color(body, default=DEFAULT_LABEL_COLOR)
    description = field_str(body, "description", "Label")
    with store.tx() as conn:
        if conn.execute(
            "SELECT 1 FROM labels WHERE repo_id = ? AND name = ?", (repo["id"], name)
        ).fetchone():
            raise validation_failed("Label", "name", "already_exists")
        ident = store.next_id(conn)
        conn.execute(
            "INSERT INTO labels (id, repo_id, name, node_id, color, description) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (ident, repo["id"], name, make_node_id("LA", ident), color, description),
        )
    label = _label(store, repo, name)
    return json_response(
        _json(request, repo, label), 201, {"Location": _json(request, repo, label)["url"]}
    )


async def get_label(request: Request) -> Response:
    """One label by name."""
    store, repo = _repo(request)
    return json_response(_json(request, repo, _label(store, repo, request.path_params["name"])))


async def update_label(request: Request) -> Response:
    """Rename, recolour or redescribe a label."""
    user = require_user(request)
    store, repo = _repo(request)
    require_push(store, repo, user)
    label = _label(store, repo, request.path_params["name"])
    body = await read_object(request)
    new_name = field_str(body, "new_name", "Label") or label["name"]
    color = _color(body, default=label["color"])
    description = (
        field_str(body, "description", "Label") if "description" in body else label["description"]
    )
    with store.tx() as conn:
        clash = conn.execute(
            "SELECT id FROM labels WHERE repo_id = ? AND name = ? AND id != ?",
            (repo["id"], new_name, label["id"]),
        ).fetchone()
        if clash is not None:
            raise validation_failed("Label", "name", "already_exists")
        conn.execute(
            "UPDATE labels SET name = ?, color = ?, description = ? WHERE id = ?",
            (new_name, color, description, label["id"]),
        )
    return json_response(_json(request, repo, _label(store, repo, new_name)))


async def delete_label(request: Request) -> Response:
    """Delete a label (and take it off every issue)."""
    user = require_user(request)
    store, repo = _repo(request)
    require_push(store, repo, user)
    label = _label(store, repo, request.path_params["name"])
    with store.tx() as conn:
        for row in conn.execute(
            "SELECT issue_id FROM issue_labels WHERE label_id = ?", (label["id"],)
        ).fetchall():
            touch_issue(conn, row["issue_id"])
        conn.execute("DELETE FROM issue_labels WHERE label_id = ?", (label["id"],))
        conn.execute("DELETE FROM labels WHERE id = ?", (label["id"],))
    return no_content()


def _names(data: Any) -> list[str]:
    """Label names from `{"labels": [...]}` or a bare list, of strings or `{"name": ...}`."""
    items = data.get("labels") if isinstance(data, dict) else data
    if items is None:
        items = []
    if not isinstance(items, list):
        raise validation_failed("Label", "labels", "invalid")
    names = []
    for item in items:
        name = item.get("name") if isinstance(item, dict) else item
        if not isinstance(name, str) or not name.strip():
            raise validation_failed("Label", "labels", "invalid", "labels must be names")
        names.append(name)
    return names


def _issue_labels_answer(
    request: Request, store: Store, repo: sqlite3.Row, issue_id: int
) -> Response:
    """The issue's labels as JSON."""
    return json_response([_json(request, repo, row) for row in issue_labels(store, issue_id)])


async def list_issue_labels(request: Request) -> Response:
    """An issue's labels."""
    store, repo = _repo(request)
    issue = require_issue(store, repo["id"], request.path_params["issue_number"])
    return _issue_labels_answer(request, store, repo, issue["id"])


async def add_or_set_labels(request: Request) -> Response:
    """POST adds labels, PUT replaces them; missing labels are created (writers only)."""
    user = require_user(request)
    store, repo = _repo(request)
    issue = require_issue(store, repo["id"], request.path_params["issue_number"])
    require_push(store, repo, user)
    names = _names(await read_json(request))
    before = label_names(request, repo, issue["id"])
    with store.tx() as conn:
        had = names_in(conn, issue["id"])
        if request.method == "PUT":
            conn.execute("DELETE FROM issue_labels WHERE issue_id = ?", (issue["id"],))
        add_issue_labels(store, conn, repo["id"], issue["id"], names)
        record_label_changes(store, conn, (repo["id"], issue["id"]), user["id"], had)
        touch_issue(conn, issue["id"])
    emit_labels(request, repo, issue["id"], before, label_names(request, repo, issue["id"]))
    return _issue_labels_answer(request, store, repo, issue["id"])


async def remove_label(request: Request) -> Response:
    """Take one label off an issue; 404 `Label does not exist` when it is not on it."""
    user = require_user(request)
    store, repo = _repo(request)
    issue = require_issue(store, repo["id"], request.path_params["issue_number"])
    require_push(store, repo, user)
    name = request.path_params["name"]
    with store.tx() as conn:
        had = names_in(conn, issue["id"])
        gone = conn.execute(
            "DELETE FROM issue_labels WHERE issue_id = ? AND label_id = "
            "(SELECT id FROM labels WHERE repo_id = ? AND name = ?)",
            (issue["id"], repo["id"], name),
        ).rowcount
        if not gone:
            raise ApiError(404, "Label does not exist")
        record_label_changes(store, conn, (repo["id"], issue["id"]), user["id"], had)
        touch_issue(conn, issue["id"])
    emit_labels(request, repo, issue["id"], {name}, set())
    return _issue_labels_answer(request, store, repo, issue["id"])


async def remove_all_labels(request: Request) -> Response:
    """Take every label off an issue (204)."""
    user = require_user(request)
    store, repo = _repo(request)
    issue = require_issue(store, repo["id"], request.path_params["issue_number"])
    require_push(store, repo, user)
    before = label_names(request, repo, issue["id"])
    with store.tx() as conn:
        had = names_in(conn, issue["id"])
        conn.execute("DELETE FROM issue_labels WHERE issue_id = ?", (issue["id"],))
        record_label_changes(store, conn, (repo["id"], issue["id"]), user["id"], had)
        touch_issue(conn, issue["id"])
    emit_labels(request, repo, issue["id"], before, set())
    return no_content()


REPO = "/repos/{owner}/{repo}"
ISSUE_LABELS = REPO + "/issues/{issue_number:int}/labels"
ROUTES = [
    Route(REPO + "/labels", list_labels, methods=["GET"]),
    Route(REPO + "/labels", create_label, methods=["POST"]),
    Route(REPO + "/labels/{name:path}", get_label, methods=["GET"]),
    Route(REPO + "/labels/{name:path}", update_label, methods=["PATCH"]),
    Route(REPO + "/labels/{name:path}", delete_label, methods=["DELETE"]),
    Route(ISSUE_LABELS, list_issue_labels, methods=["GET"]),
    Route(ISSUE_LABELS, add_or_set_labels, methods=["POST", "PUT"]),
    Route(ISSUE_LABELS, remove_all_labels, methods=["DELETE"]),
    Route(ISSUE_LABELS + "/{name:path}", remove_label, methods=["DELETE"]),
]
