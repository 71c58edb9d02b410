"""Routes for accounts: `/user`, repositories, collaborators, app installations and their tokens."""

from __future__ import annotations

import sqlite3

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from conveyor.emulator.model.http import (
    ApiError,
    base_url,
    emulator,
    json_response,
    no_content,
    not_found,
    page_params,
    paged_response,
    read_object,
    require_user,
)
from conveyor.emulator.model.records import (
    PERMISSIONS,
    clone_url,
    permission_of,
    require_repo,
    user_by_login,
)
from conveyor.emulator.model.shapes import (
    collaborator_json,
    repo_json,
    user_full_json,
)
from conveyor.emulator.model.store import Store


async def get_user(request: Request) -> Response:
    """The authenticated user; installation tokens get 403, as on GitHub."""
    user = require_user(request)
    if user["type"] == "Bot":
        raise ApiError(403, "Resource not accessible by integration")
    return json_response(user_full_json(base_url(request), user))


async def get_repo(request: Request) -> Response:
    """A full repository."""
    state = emulator(request)
    repo = require_repo(state.store, request.path_params["owner"], request.path_params["repo"])
    owner = state.store.one("SELECT * FROM users WHERE id = ?", (repo["owner_id"],))
    assert owner is not None
    open_count = state.store.one(
        "SELECT COUNT(*) AS n FROM issues WHERE repo_id = ? AND state = 'open'", (repo["id"],)
    )
    url = clone_url(state.data_dir, owner["login"], repo["name"])
    count = int(open_count["n"]) if open_count is not None else 0
    return json_response(repo_json(base_url(request), repo, owner, url, count))


def _collaborators(store: Store, repo: sqlite3.Row) -> list[tuple[sqlite3.Row, str]]:
    """The owner (admin) and every collaborator with its permission, by login."""
    rows = store.all(
        "SELECT users.*, 'admin' AS permission FROM users WHERE id = ? UNION "
        "SELECT users.*, collaborators.permission FROM collaborators "
        "JOIN users ON users.id = collaborators.user_id "
        "WHERE collaborators.repo_id = ? AND users.id != ? ORDER BY login",
        (repo["owner_id"], repo["id"], repo["owner_id"]),
    )
    return [(row, str(row["permission"])) for row in rows]


async def list_collaborators(request: Request) -> Response:
    """The repository's collaborators, paginated."""
    state = emulator(request)
    repo = require_repo(state.store, request.path_params["owner"], request.path_params["repo"])
    page = page_params(request)
    everyone = _collaborators(state.store, repo)
    chosen = everyone[page.offset : page.offset + page.per_page]
    base = base_url(request)
    items = [collaborator_json(base, user, perm) for user, perm in chosen]
    return paged_response(request, items, page, len(everyone))


def _target(request: Request) -> tuple[Store, sqlite3.Row, sqlite3.Row | None]:
    """The store, the repository and the named user (None when no such user)."""
    state = emulator(request)
    repo = require_repo(state.store, request.path_params["owner"], request.path_params["repo"])
    return state.store, repo, user_by_login(state.store, request.path_params["username"])


async def check_collaborator(request: Request) -> Response:
    """204 when the user is a collaborator (or the owner), 404 otherwise."""
    store, repo, user = _target(request)
    if user is None:
        raise not_found()
    if (
        repo["owner_id"] != user["id"]
        and store.one(
            "SELECT 1 FROM collaborators WHERE repo_id = ? AND user_id = ?",
            (repo["id"], user["id"]),
        )
        is None
    ):
        raise not_found()
    return no_content()


async def put_collaborator(request: Request) -> Response:
    """Add a collaborator directly (no invitation step); admins only."""
    caller = require_user(request)
    store, repo, user = _target(request)
    if permission_of(store, repo, caller["id"]) != "admin":
        raise ApiError(403, "Must have admin rights to Repository.")
    if user is None:
        raise not_found()
    body = await read_object(request)
    permission = body.get("permission", "write")
    mapping = {"pull": "read", "push": "write", **{p: p for p in PERMISSIONS}}
    if permission not in mapping:
        raise ApiError(
            422,
            "Validation Failed",
            [{"resource": "Repository", "field": "permission", "code": "invalid"}],
        )
    with store.tx() as conn:
        conn.execute(
            "INSERT OR REPLACE INTO collaborators VALUES (?, ?, ?)",
            (repo["id"], user["id"], mapping[permission]),
        )
    return no_content()


async def delete_collaborator(request: Request) -> Response:
    """Remove a collaborator; admins only."""
    caller = require_user(request)
    store, repo, user = _target(request)
    if permission_of(store, repo, caller["id"]) != "admin":
        raise ApiError(403, "Must have admin rights to Repository.")
    if user is not None:
        with store.tx() as conn:
            conn.execute(
                "DELETE FROM collaborators WHERE repo_id = ? AND user_id = ?",
                (repo["id"], user["id"]),
            )
    return no_content()


async def get_permission(request: Request) -> Response:
    """`{permission, role_name, user}`: admin/write/read as GitHub reports them."""
    store, repo, user = _target(request)
    if user is None:
        raise not_found()
    role = permission_of(store, repo, user["id"])
    legacy = {"maintain": "write", "triage": "read"}.get(role, role)
    data = {
        "permission": legacy,
        "role_name": role,
        "user": collaborator_json(base_url(request), user, role),
    }
    return json_response(data)


REPO = "/repos/{owner}/{repo}"
ROUTES = [
    Route("/user", get_user, methods=["GET"]),
    Route(REPO, get_repo, methods=["GET"]),
    Route(f"{REPO}/collaborators", list_collaborators, methods=["GET"]),
    Route(f"{REPO}/collaborators/{{username}}", check_collaborator, methods=["GET"]),
    Route(f"{REPO}/collaborators/{{username}}", put_collaborator, methods=["PUT"]),
    Route(f"{REPO}/collaborators/{{username}}", delete_collaborator, methods=["DELETE"]),
    Route(f"{REPO}/collaborators/{{username}}/permission", get_permission, methods=["GET"]),
]
