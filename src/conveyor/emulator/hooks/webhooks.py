"""Repository webhooks: create, list, read, change and delete them; their deliveries.

Admins manage a repository's hooks, as on GitHub: `config.url` is where
deliveries go, `config.secret` signs them, `events` picks what is sent (`*` is
everything), `active: false` pauses it. A new hook is sent a `ping`. Routes send
events with `hooks.events.emit`; `hook_queue` carries them out.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from conveyor.emulator.hooks.events import emit_to, hook_json, origin_of
from conveyor.emulator.model.http import (
    base_url,
    emulator,
    json_response,
    no_content,
    not_found,
    page_params,
    paged_response,
    read_object,
    require_user,
    validation_failed,
)
from conveyor.emulator.model.records import permission_of, require_owned, require_repo
from conveyor.emulator.model.shapes import now_iso
from conveyor.emulator.model.state import EmulatorState

RESOURCE = "Hook"
CONTENT_TYPES = ("json", "form")


def _admin_repo(request: Request) -> sqlite3.Row:
    state = emulator(request)
    repo = require_repo(state.store, request.path_params["owner"], request.path_params["repo"])
    user = require_user(request)
    if permission_of(state.store, repo, int(user["id"])) != "admin":
        raise not_found()  # GitHub hides hooks from everyone but admins
    return repo


def _hook(request: Request, repo: sqlite3.Row) -> sqlite3.Row:
    store = emulator(request).store
    return require_owned(store, "hooks", request.path_params["hook_id"], repo)


def _config(value: Any, before: dict[str, Any] | None) -> dict[str, Any]:
    if value is None and before is not None:
        return before
    if not isinstance(value, dict):
        raise validation_failed(RESOURCE, "config", "missing_field")
    config = {**(before or {}), **value}
    url = config.get("url")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise validation_failed(RESOURCE, "url", "custom", "url must be an http(s) URL")
    content_type = config.get("content_type", "form")
    if content_type not in CONTENT_TYPES:
        raise validation_failed(RESOURCE, "content_type", "invalid", "json or form")
    secret = config.get("secret", "")
    if not isinstance(secret, str):
        raise validation_failed(RESOURCE, "secret", "invalid", "secret must be a string")
    insecure = str(config.get("insecure_ssl", "0"))
    return {"url": url, "content_type": content_type, "secret": secret, "insecure_ssl": insecure}


def _events(body: dict[str, Any], before: list[str] | None) -> list[str]:
    events = body.get("events", before if before is not None else ["push"])
    if not isinstance(events, list) or not all(isinstance(e, str) and e for e in events):
        raise validation_failed(RESOURCE, "events", "invalid", "events must be names")
    events = [e for e in events if e not in (body.get("remove_events") or [])]
    events += [e for e in body.get("add_events") or [] if isinstance(e, str) and e not in events]
    return list(dict.fromkeys(events))


def _active(body: dict[str, Any], before: bool) -> bool:
    active = body.get("active", before)
    if not isinstance(active, bool):
        raise validation_failed(RESOURCE, "active", "invalid", "active must be a boolean")
    return active


async def list_hooks(request: Request) -> Response:
    """`GET /repos/{owner}/{repo}/hooks`."""
    repo = _admin_repo(request)
    rows = emulator(request).store.all(
        "SELECT * FROM hooks WHERE repo_id = ? ORDER BY id", (repo["id"],)
    )
    page = page_params(request)
    items = [hook_json(base_url(request), repo, row) for row in rows]
    return paged_response(
        request, items[page.offset : page.offset + page.per_page], page, len(items)
    )


async def create_hook(request: Request) -> Response:
    """`POST /repos/{owner}/{repo}/hooks`: a `web` hook; it is sent a ping."""
    repo = _admin_repo(request)
    body = await read_object(request)
    if body.get("name", "web") != "web":
        raise validation_failed(RESOURCE, "name", "invalid", "only web hooks exist")
    config = _config(body.get("config"), None)
    events = _events(body, None)
    active = _active(body, True)
    state = emulator(request)
    now = now_iso()
    with state.store.tx() as conn:
        ident = state.store.next_id(conn)
        conn.execute(
            "INSERT INTO hooks (id, repo_id, config, events, active, created_at, updated_at, "
            "base) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                ident,
                repo["id"],
                json.dumps(config),
                json.dumps(events),
                int(active),
                now,
                now,
                base_url(request),
            ),
        )
    row = _hook_row(state, ident)
    data = hook_json(base_url(request), repo, row)
    if active:
        ping = {"zen": ZEN, "hook_id": ident, "hook": data}
        emit_to(origin_of(request), repo, row, "ping", None, objects=ping)
    return json_response(data, 201)


ZEN = "Keep it logically awesome."


def _hook_row(state: EmulatorState, ident: int) -> sqlite3.Row:
    row = state.store.one("SELECT * FROM hooks WHERE id = ?", (ident,))
    assert row is not None
    return row


async def one_hook(request: Request) -> Response:
    """`GET/PATCH/DELETE /repos/{owner}/{repo}/hooks/{hook_id}`."""
    repo = _admin_repo(request)
    row = _hook(request, repo)
    state = emulator(request)
    if request.method == "DELETE":
        with state.store.tx() as conn:
            conn.execute("DELETE FROM hooks WHERE id = ?", (row["id"],))
        return no_content()
    if request.method == "PATCH":
        body = await read_object(request)
        config = _config(body.get("config"), json.loads(row["config"]))
        events = _events(body, json.loads(row["events"]))
        active = _active(body, bool(row["active"]))
        with state.store.tx() as conn:
            conn.execute(
                "UPDATE hooks SET config = ?, events = ?, active = ?, updated_at = ? WHERE id = ?",
                (json.dumps(config), json.dumps(events), int(active), now_iso(), row["id"]),
            )
        row = _hook_row(state, int(row["id"]))
    return json_response(hook_json(base_url(request), repo, row))


async def list_deliveries(request: Request) -> Response:
    """`GET .../hooks/{hook_id}/deliveries`: newest first."""
    repo = _admin_repo(request)
    row = _hook(request, repo)
    page = page_params(request)
    rows = emulator(request).store.all(
        "SELECT * FROM hook_deliveries WHERE hook_id = ? ORDER BY id DESC LIMIT ? OFFSET ?",
        (row["id"], page.per_page, page.offset),
    )
    items = [
        {
            "id": d["id"], "guid": d["guid"], "delivered_at": d["delivered_at"],
            "redelivery": False, "duration": d["duration"], "status": d["status"],
            "status_code": d["status_code"], "event": d["event"], "action": d["action"],
            "installation_id": None, "repository_id": repo["id"], "throttled_at": None,
        }
        for d in rows
    ]  # fmt: skip
    if request.query_params.get("status") in ("success", "failure"):
        ok = request.query_params["status"] == "success"
        items = [i for i in items if (200 <= i["status_code"] < 300) == ok]
    return json_response(items)


def on_shutdown(state: EmulatorState) -> None:
    """Send the queued deliveries and end the worker."""
    state.hooks.stop()


_HOOKS = "/repos/{owner}/{repo}/hooks"
ROUTES = [
    Route(_HOOKS, list_hooks, methods=["GET"]),
    Route(_HOOKS, create_hook, methods=["POST"]),
    Route(f"{_HOOKS}/{{hook_id}}", one_hook, methods=["GET", "PATCH", "DELETE"]),
    Route(f"{_HOOKS}/{{hook_id}}/deliveries", list_deliveries, methods=["GET"]),
]
