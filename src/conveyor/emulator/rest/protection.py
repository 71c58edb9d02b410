"""Branch protection: the protection and required-status-checks endpoints, admin-only writes."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from conveyor.emulator.model.http import (
    ApiError,
    base_url,
    emulator,
    json_response,
    no_content,
    read_object,
    require_user,
    validation_failed,
)
from conveyor.emulator.model.records import permission_of, require_repo
from conveyor.emulator.model.shapes import repo_api_url
from conveyor.emulator.model.store import Store
from conveyor.emulator.repos.pushes import repo_git
from conveyor.emulator.repos.required import Protection, protection_of
from conveyor.git import read_ref


def _policy_json(url: str, protection: Protection) -> dict[str, Any]:
    return {
        "url": f"{url}/required_status_checks",
        "strict": protection.strict,
        "contexts": list(protection.contexts),
        "checks": [{"context": c, "app_id": None} for c in protection.contexts],
        "contexts_url": f"{url}/required_status_checks/contexts",
        "enforcement_level": "everyone" if protection.enforce_admins else "non_admins",
    }


def protection_json(url: str, branch: str, protection: Protection) -> dict[str, Any]:
    """GitHub's branch-protection (also protected-branch: the fields overlap)."""
    data: dict[str, Any] = {
        "url": url,
        "name": branch,
        "protection_url": url,
        "enabled": True,
        "enforce_admins": {"url": f"{url}/enforce_admins", "enabled": protection.enforce_admins},
        "required_linear_history": {"enabled": False},
        "allow_force_pushes": {"enabled": False},
        "allow_deletions": {"enabled": False},
        "block_creations": {"enabled": False},
        "required_conversation_resolution": {"enabled": False},
        "required_signatures": {"url": f"{url}/required_signatures", "enabled": False},
    }
    if protection.checks_enabled:
        data["required_status_checks"] = _policy_json(url, protection)
    return data


def _target(request: Request) -> tuple[sqlite3.Row, str, str]:
    """The repository, the branch (which must exist) and the protection URL of the request."""
    params = request.path_params
    store = emulator(request).store
    repo = require_repo(store, params["owner"], params["repo"])
    branch = params["branch"]
    bare = repo_git(store, emulator(request).data_dir, int(repo["id"]))
    if read_ref(bare, f"refs/heads/{branch}") is None:
        raise ApiError(404, "Branch not found")
    api = repo_api_url(base_url(request), repo["owner_login"], repo["name"])
    return repo, branch, f"{api}/branches/{branch}/protection"


def _require_admin(request: Request, repo: sqlite3.Row) -> None:
    user = require_user(request)
    if permission_of(emulator(request).store, repo, int(user["id"])) != "admin":
        raise ApiError(403, "Resource not accessible by integration")


def _contexts(checks: Any, resource: str) -> list[str] | None:
    """Context names from `contexts` / `checks`; None when neither is given."""
    if not isinstance(checks, dict):
        raise validation_failed(resource, "required_status_checks", "invalid")
    names: list[str] = []
    for key in ("contexts", "checks"):
        value = checks.get(key)
        if value is None:
            continue
        if not isinstance(value, list):
            raise validation_failed(resource, key, "invalid", f"{key} must be a list")
        for item in value:
            name = item.get("context") if isinstance(item, dict) else item
            if not isinstance(name, str):
                raise validation_failed(resource, key, "invalid", f"{key} holds a non-string")
            names.append(name)
    if checks.get("contexts") is None and checks.get("checks") is None:
        return None
    return list(dict.fromkeys(names))


def _save(store: Store, repo_id: int, branch: str, protection: Protection) -> None:
    with store.tx() as conn:
        conn.execute(
            "INSERT OR REPLACE INTO protections (repo_id, branch, checks_enabled, strict, "
            "contexts, enforce_admins) VALUES (?, ?, ?, ?, ?, ?)",
            (
                repo_id,
                branch,
                int(protection.checks_enabled),
                int(protection.strict),
                json.dumps(list(protection.contexts)),
                int(protection.enforce_admins),
            ),
        )


async def get_protection(request: Request) -> Response:
    """`GET .../branches/{branch}/protection`."""
    repo, branch, url = _target(request)
    protection = protection_of(emulator(request).store, int(repo["id"]), branch)
    if protection is None:
        raise ApiError(404, "Branch not protected")
    return json_response(protection_json(url, branch, protection))


async def put_protection(request: Request) -> Response:
    """`PUT .../branches/{branch}/protection`: replace the branch's protection."""
    repo, branch, url = _target(request)
    _require_admin(request, repo)
    body = await read_object(request)
    checks = body.get("required_status_checks")
    enforce = body.get("enforce_admins")
    if enforce is not None and not isinstance(enforce, bool):
        raise validation_failed("Branch", "enforce_admins", "invalid")
    protection = Protection(False, False, (), bool(enforce))
    if checks is not None:
        contexts = _contexts(checks, "Branch") or []
        strict = checks.get("strict", False)
        if not isinstance(strict, bool):
            raise validation_failed("Branch", "strict", "invalid", "strict must be a boolean")
        protection = Protection(True, strict, tuple(contexts), bool(enforce))
    _save(emulator(request).store, int(repo["id"]), branch, protection)
    return json_response(protection_json(url, branch, protection))


async def delete_protection(request: Request) -> Response:
    """`DELETE .../branches/{branch}/protection`."""
    repo, branch, _ = _target(request)
    _require_admin(request, repo)
    store = emulator(request).store
    if protection_of(store, int(repo["id"]), branch) is None:
        raise ApiError(404, "Branch not protected")
    with store.tx() as conn:
        conn.execute(
            "DELETE FROM protections WHERE repo_id = ? AND branch = ?", (repo["id"], branch)
        )
    return no_content()


async def required_status_checks(request: Request) -> Response:
    """`GET/PATCH/DELETE .../branches/{branch}/protection/required_status_checks`."""
    repo, branch, url = _target(request)
    store = emulator(request).store
    protection = protection_of(store, int(repo["id"]), branch)
    if request.method != "GET":
        _require_admin(request, repo)
    if protection is None:
        raise ApiError(404, "Branch not protected")
    if request.method == "DELETE":
        _save(
            store, int(repo["id"]), branch, Protection(False, False, (), protection.enforce_admins)
        )
        return no_content()
    if request.method == "PATCH":
        body = await read_object(request)
        strict = body.get("strict", protection.strict)
        if not isinstance(strict, bool):
            raise validation_failed("Branch", "strict", "invalid", "strict must be a boolean")
        contexts = _contexts(body, "Branch")
        new_contexts = protection.contexts if contexts is None else tuple(contexts)
        protection = Protection(True, strict, new_contexts, protection.enforce_admins)
        _save(store, int(repo["id"]), branch, protection)
    if not protection.checks_enabled:
        raise ApiError(404, "Required status checks not enabled")
    return json_response(_policy_json(url, protection))


_BASE = "/repos/{owner}/{repo}/branches/{branch:path}/protection"
ROUTES = [
    Route(
        f"{_BASE}/required_status_checks",
        required_status_checks,
        methods=["GET", "PATCH", "DELETE"],
    ),
    Route(_BASE, get_protection, methods=["GET"]),
    Route(_BASE, put_protection, methods=["PUT"]),
    Route(_BASE, delete_protection, methods=["DELETE"]),
]
