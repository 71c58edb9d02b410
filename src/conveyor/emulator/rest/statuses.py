"""Commit statuses: create, list a commit's, and the combined status of its contexts.

A new status is delivered to webhooks as a `status` event: the commit, and up to
ten branches that contain it (their heads, whether protected), as GitHub sends.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from conveyor.emulator.hooks.events import Objects, emit
from conveyor.emulator.model.check_rows import STATUS_STATES, latest_by_name, statuses_for
from conveyor.emulator.model.http import (
    ApiError,
    emulator,
    field_str,
    json_response,
    page_params,
    read_object,
    require_user,
    validation_failed,
)
from conveyor.emulator.model.records import require_push
from conveyor.emulator.model.shapes import now_iso, user_json
from conveyor.emulator.model.store import Store, make_node_id
from conveyor.emulator.repos.git_cache import resolve_commit_ref
from conveyor.emulator.repos.pull_shape import RepoView
from conveyor.emulator.repos.required import protection_of
from conveyor.emulator.rest.branches import commit_json
from conveyor.emulator.rest.pulls import repo_context
from conveyor.git import run_git, try_rev_parse

UNSIGNED = {
    "verified": False, "reason": "unsigned", "signature": None, "payload": None,
    "verified_at": None,
}  # fmt: skip


def status_json(view: RepoView, row: sqlite3.Row, creator: dict[str, Any] | None) -> dict[str, Any]:
    """GitHub's `status` (a `simple-commit-status` plus its creator)."""
    return {
        "url": f"{view.api}/statuses/{row['sha']}",
        "avatar_url": None,
        "id": row["id"],
        "node_id": row["node_id"],
        "state": row["state"],
        "description": row["description"],
        "target_url": row["target_url"],
        "context": row["context"],
        "created_at": row["created_at"],
        "updated_at": row["updated_at"],
        "creator": creator,
    }


def _creator(request: Request, view: RepoView, user_id: int | None) -> dict[str, Any] | None:
    store = emulator(request).store
    row = store.one("SELECT * FROM users WHERE id = ?", (user_id,)) if user_id else None
    return user_json(view.base, row) if row is not None else None


async def create_status(request: Request) -> Response:
    """`POST /repos/{owner}/{repo}/statuses/{sha}`."""
    user = require_user(request)
    state, repo, view = repo_context(request)
    require_push(state.store, repo, user)
    body = await read_object(request)
    sha = request.path_params["sha"]
    full = try_rev_parse(view.bare, sha) if len(sha) == 40 else None
    if full is None:
        raise ApiError(422, f"No commit found for SHA: {sha}")
    wanted = field_str(body, "state", "Status", required=True)
    if wanted not in STATUS_STATES:
        raise validation_failed("Status", "state", "invalid")
    context = field_str(body, "context", "Status") or "default"
    now = now_iso()
    with state.store.tx() as conn:
        ident = state.store.next_id(conn)
        conn.execute(
            "INSERT INTO statuses (id, repo_id, node_id, sha, state, context, description, "
            "target_url, creator_id, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (
                ident,
                repo["id"],
                make_node_id("SC", ident),
                full,
                wanted,
                context,
                field_str(body, "description", "Status"),
                field_str(body, "target_url", "Status"),
                user["id"],
                now,
                now,
            ),
        )
    row = state.store.one("SELECT * FROM statuses WHERE id = ?", (ident,))
    assert row is not None
    emit(request, repo, "status", None, lambda: _delivered(state.store, view, row))
    return json_response(status_json(view, row, user_json(view.base, user)), status=201)


def _delivered(store: Store, view: RepoView, row: sqlite3.Row) -> Objects:
    """A `status` delivery's own objects."""
    sha = str(row["sha"])
    commit = commit_json(view, sha)
    commit["commit"] = {**commit["commit"], "verification": UNSIGNED}
    return {
        "id": row["id"], "sha": sha, "name": f"{view.owner}/{view.name}",
        "target_url": row["target_url"], "avatar_url": None, "context": row["context"],
        "description": row["description"], "state": row["state"], "commit": commit,
        "branches": _branches(store, view, sha), "created_at": row["created_at"],
        "updated_at": row["updated_at"],
    }  # fmt: skip


def _branches(store: Store, view: RepoView, sha: str) -> list[dict[str, Any]]:
    """Up to ten branches whose history holds `sha`."""
    listed = run_git(
        ["for-each-ref", "--count=10", f"--contains={sha}", "--format=%(objectname) %(refname)",
         "refs/heads/"],
        cwd=view.bare.path,
        env=view.bare.env,
    ).stdout.decode()  # fmt: skip
    found = []
    for line in listed.splitlines():
        head, _, ref = line.partition(" ")
        name = ref.removeprefix("refs/heads/")
        protected = protection_of(store, int(view.row["id"]), name) is not None
        commit = {"sha": head, "url": f"{view.api}/commits/{head}"}
        found.append({"name": name, "commit": commit, "protected": protected})
    return found


async def list_statuses(request: Request) -> Response:
    """`GET .../commits/{ref}/statuses`, newest first; none for a commit the forge lacks.

    GitHub's description lists only 200 (and 301) here, so an unknown ref is an empty list.
    """
    state, repo, view = repo_context(request)
    sha = resolve_commit_ref(view.bare, request.path_params["ref"])
    rows = [] if sha is None else statuses_for(state.store, int(repo["id"]), sha)
    page = page_params(request)
    chosen = rows[page.offset : page.offset + page.per_page]
    return json_response(
        [status_json(view, r, _creator(request, view, r["creator_id"])) for r in chosen]
    )


async def combined_status(request: Request) -> Response:
    """`GET .../commits/{ref}/status`: the newest status per context and their verdict (404
    for a ref the forge lacks, as GitHub's description says)."""
    state, repo, view = repo_context(request)
    sha = resolve_commit_ref(view.bare, request.path_params["ref"])
    if sha is None:
        raise ApiError(404, f"No commit found for SHA: {request.path_params['ref']}")
    latest = list(
        latest_by_name(statuses_for(state.store, int(repo["id"]), sha), "context").values()
    )
    states = {row["state"] for row in latest}
    if states & {"error", "failure"}:
        verdict = "failure"
    elif not latest or "pending" in states:
        verdict = "pending"
    else:
        verdict = "success"
    statuses = []
    for row in latest:
        item = status_json(view, row, None)
        item.pop("creator")
        statuses.append(item)
    return json_response(
        {
            "state": verdict,
            "statuses": statuses,
            "sha": sha,
            "total_count": len(latest),
            "repository": view.repo,
            "commit_url": f"{view.api}/commits/{sha}",
            "url": f"{view.api}/commits/{sha}/status",
        }
    )


_REPO = "/repos/{owner}/{repo}"
ROUTES = [
    Route(f"{_REPO}/commits/{{ref:path}}/statuses", list_statuses, methods=["GET"]),
    Route(f"{_REPO}/commits/{{ref:path}}/status", combined_status, methods=["GET"]),
    Route(f"{_REPO}/statuses/{{sha}}", create_status, methods=["POST"]),
]
