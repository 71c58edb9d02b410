"""Routes for GitHub Apps: an installation on a repository and minting its tokens from a JWT."""

from __future__ import annotations

import sqlite3
import time
from datetime import UTC, datetime
from typing import Any

import jwt
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from conveyor.emulator.model.http import (
    ApiError,
    base_url,
    bearer_token,
    current_user,
    emulator,
    json_response,
    not_found,
    read_object,
)
from conveyor.emulator.model.records import new_token, require_repo
from conveyor.emulator.model.shapes import user_json
from conveyor.emulator.model.store import Store

TOKEN_LIFETIME_S = 3600
APP_PERMISSIONS = {
    "contents": "write",
    "issues": "write",
    "pull_requests": "write",
    "checks": "write",
    "statuses": "write",
    "metadata": "read",
}


def _app_from_jwt(store: Store, token: str) -> sqlite3.Row:
    """The app whose private key signed this RS256 JWT (`iss` = app id); 401 otherwise."""
    try:
        claims: dict[str, Any] = jwt.decode(token, options={"verify_signature": False})
        app = store.one("SELECT * FROM apps WHERE id = ?", (int(str(claims.get("iss"))),))
        if app is None:
            raise ApiError(401, "Integration not found")
        jwt.decode(
            token,
            app["public_key_pem"],
            algorithms=["RS256"],
            options={"require": ["exp", "iat", "iss"]},
            leeway=60,
        )
    except (jwt.PyJWTError, ValueError) as exc:
        raise ApiError(401, "A JSON web token could not be decoded") from exc
    return app


def _installation_json(base: str, store: Store, inst: sqlite3.Row) -> dict[str, Any]:
    """An installation of an app on one repository."""
    app = store.one("SELECT * FROM apps WHERE id = ?", (inst["app_id"],))
    repo = store.one("SELECT * FROM repos WHERE id = ?", (inst["repo_id"],))
    assert app is not None
    assert repo is not None
    owner = store.one("SELECT * FROM users WHERE id = ?", (repo["owner_id"],))
    assert owner is not None
    return {
        "id": inst["id"],
        "account": user_json(base, owner),
        "repository_selection": "selected",
        "access_tokens_url": f"{base}/app/installations/{inst['id']}/access_tokens",
        "repositories_url": f"{base}/installation/repositories",
        "html_url": f"{base}/settings/installations/{inst['id']}",
        "app_id": app["id"],
        "app_slug": app["slug"],
        "target_id": owner["id"],
        "target_type": owner["type"],
        "permissions": APP_PERMISSIONS,
        "events": [],
        "created_at": inst["created_at"],
        "updated_at": inst["created_at"],
        "single_file_name": None,
        "suspended_by": None,
        "suspended_at": None,
    }


async def get_installation(request: Request) -> Response:
    """The app installation on a repository (app JWT, or that installation's own token)."""
    state = emulator(request)
    token = bearer_token(request)
    if token is None:
        raise ApiError(401, "A JSON web token could not be decoded")
    repo = require_repo(state.store, request.path_params["owner"], request.path_params["repo"])
    user = current_user(request)
    rows = state.store.all("SELECT * FROM installations WHERE repo_id = ?", (repo["id"],))
    if user is None:
        app = _app_from_jwt(state.store, token)
        rows = [row for row in rows if row["app_id"] == app["id"]]
    else:
        bots = {
            r["app_id"]
            for r in state.store.all(
                "SELECT id AS app_id FROM apps WHERE bot_user_id = ?", (user["id"],)
            )
        }
        rows = [row for row in rows if row["app_id"] in bots]
    if not rows:
        raise not_found()
    return json_response(_installation_json(base_url(request), state.store, rows[0]))


async def create_access_token(request: Request) -> Response:
    """Mint an installation token acting as the app's bot user (`SLUG[bot]`)."""
    state = emulator(request)
    token = bearer_token(request)
    if token is None:
        raise ApiError(401, "A JSON web token could not be decoded")
    app = _app_from_jwt(state.store, token)
    await read_object(request)
    inst = state.store.one(
        "SELECT * FROM installations WHERE id = ? AND app_id = ?",
        (request.path_params["installation_id"], app["id"]),
    )
    if inst is None:
        raise not_found()
    minted = new_token("ghs_")
    expires = time.time() + TOKEN_LIFETIME_S
    with state.store.tx() as conn:
        conn.execute(
            "INSERT INTO tokens (token, user_id, installation_id, expires_at) VALUES (?, ?, ?, ?)",
            (minted, app["bot_user_id"], inst["id"], expires),
        )
    expires_at = datetime.fromtimestamp(expires, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    data = {
        "token": minted,
        "expires_at": expires_at,
        "permissions": APP_PERMISSIONS,
        "repository_selection": "selected",
    }
    return json_response(data, 201)


ROUTES = [
    Route("/repos/{owner}/{repo}/installation", get_installation, methods=["GET"]),
    Route(
        "/app/installations/{installation_id:int}/access_tokens",
        create_access_token,
        methods=["POST"],
    ),
]
