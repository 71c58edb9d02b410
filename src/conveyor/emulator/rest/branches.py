"""Branches and git refs: `GET .../branches/{branch}` and the `git/refs` endpoints.

A ref moved through the API counts as a push: PR heads follow it and CI is queued.
"""

from __future__ import annotations

import base64
import sqlite3
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from conveyor.emulator.hooks.ci import wake
from conveyor.emulator.hooks.push import deliver_moves
from conveyor.emulator.model.http import (
    ApiError,
    field_str,
    json_response,
    no_content,
    read_object,
    require_user,
    validation_failed,
)
from conveyor.emulator.model.records import require_push
from conveyor.emulator.model.state import EmulatorState
from conveyor.emulator.repos.git_cache import details_of
from conveyor.emulator.repos.pull_shape import RepoView
from conveyor.emulator.repos.pushes import apply_push
from conveyor.emulator.repos.required import protection_of
from conveyor.emulator.rest.protection import protection_json
from conveyor.emulator.rest.pulls import repo_context
from conveyor.git import (
    ZERO_SHA,
    GitError,
    delete_ref,
    is_ancestor,
    list_refs,
    read_ref,
    try_rev_parse,
    update_ref,
)


def commit_json(view: RepoView, sha: str) -> dict[str, Any]:
    """GitHub's `commit` object for a SHA of this repository."""
    details = details_of(view.bare, sha)
    html = f"{view.repo['html_url']}/commit/{sha}"

    def person(who: tuple[str, str, str]) -> dict[str, str]:
        return {"name": who[0], "email": who[1], "date": who[2]}

    return {
        "url": f"{view.api}/commits/{sha}",
        "sha": sha,
        "node_id": "C_" + base64.urlsafe_b64encode(sha.encode()).decode().rstrip("="),
        "html_url": html,
        "comments_url": f"{view.api}/commits/{sha}/comments",
        "commit": {
            "url": f"{view.api}/git/commits/{sha}",
            "author": person(details.author),
            "committer": person(details.committer),
            "message": details.message,
            "comment_count": 0,
            "tree": {"sha": details.tree, "url": f"{view.api}/git/trees/{details.tree}"},
        },
        # No account is linked to git identities here: GitHub's `empty-object` says so.
        "author": {},
        "committer": {},
        "parents": [
            {"sha": p, "url": f"{view.api}/commits/{p}", "html_url": f"{html[:-40]}{p}"}
            for p in details.parents
        ],
    }


async def get_branch(request: Request) -> Response:
    """`GET /repos/{owner}/{repo}/branches/{branch}` with its protection."""
    state, repo, view = repo_context(request)
    branch = request.path_params["branch"]
    sha = read_ref(view.bare, f"refs/heads/{branch}")
    if sha is None:
        raise ApiError(404, "Branch not found")
    protection = protection_of(state.store, int(repo["id"]), branch)
    url = f"{view.api}/branches/{branch}"
    return json_response(
        {
            "name": branch,
            "commit": commit_json(view, sha),
            "_links": {"html": f"{view.repo['html_url']}/tree/{branch}", "self": url},
            "protected": protection is not None,
            "protection": (
                protection_json(f"{url}/protection", branch, protection)
                if protection is not None
                else _UNPROTECTED
            ),
            "protection_url": f"{url}/protection",
        }
    )


_UNPROTECTED = {
    "enabled": False,
    "required_status_checks": {"enforcement_level": "off", "contexts": [], "checks": []},
}


def ref_json(view: RepoView, repo_id: int, ref: str, sha: str) -> dict[str, Any]:
    """GitHub's `git-ref`."""
    node = base64.urlsafe_b64encode(f"{repo_id}:{ref}".encode()).decode().rstrip("=")
    return {
        "ref": ref,
        "node_id": f"REF_{node}",
        "url": f"{view.api}/git/{ref}",
        "object": {"type": "commit", "sha": sha, "url": f"{view.api}/git/commits/{sha}"},
    }


def _pushed(state: EmulatorState, repo: sqlite3.Row, new: str, ref: str, user: sqlite3.Row) -> None:
    """Treat an API ref change by `user` like a push."""
    with state.store.tx() as conn:
        moves = apply_push(state.store, conn, int(repo["id"]), new, ref)
    deliver_moves(state, moves, int(user["id"]))
    wake(state)


async def list_refs_route(request: Request) -> Response:
    """`GET .../git/refs` (every ref) and `GET .../git/refs/{prefix}` (one, or those under it)."""
    _, repo, view = repo_context(request)
    wanted = "refs/" + request.path_params.get("ref", "")
    refs = list_refs(view.bare, "refs/")
    if wanted in refs:
        return json_response(ref_json(view, int(repo["id"]), wanted, refs[wanted]))
    matching = [
        ref_json(view, int(repo["id"]), name, sha)
        for name, sha in sorted(refs.items())
        if name.startswith(wanted.rstrip("/") + "/") or wanted == "refs/"
    ]
    if not matching:
        raise ApiError(404, "Not Found")
    return json_response(matching)


def _valid_ref(ref: str) -> bool:
    """Git's ref-name rules, enough to refuse what `git check-ref-format` would."""
    parts = ref.split("/")
    return (
        parts[0] == "refs"
        and len(parts) >= 3
        and not any(c in ref for c in " ~^:?*[\\")
        and all(ord(c) >= 32 and c != "\x7f" for c in ref)
        and ".." not in ref
        and "@{" not in ref
        and not ref.endswith((".", ".lock", "/"))
        and all(p and not p.startswith(".") for p in parts)
    )


async def create_ref(request: Request) -> Response:
    """`POST .../git/refs` ({ref, sha})."""
    user = require_user(request)
    state, repo, view = repo_context(request)
    require_push(state.store, repo, user)
    body = await read_object(request)
    ref = field_str(body, "ref", "Reference", required=True) or ""
    sha = field_str(body, "sha", "Reference", required=True) or ""
    if not _valid_ref(ref):
        raise ApiError(422, "Reference name is invalid")
    full = try_rev_parse(view.bare, sha) if len(sha) == 40 else None
    if full is None:
        raise ApiError(422, "Object does not exist")
    try:
        update_ref(view.bare, ref, full, ZERO_SHA)
    except GitError as exc:
        raise ApiError(422, "Reference already exists") from exc
    _pushed(state, repo, full, ref, user)
    return json_response(ref_json(view, int(repo["id"]), ref, full), status=201)


async def update_ref_route(request: Request) -> Response:
    """`PATCH .../git/refs/{ref}` ({sha, force})."""
    user = require_user(request)
    state, repo, view = repo_context(request)
    require_push(state.store, repo, user)
    ref = "refs/" + request.path_params["ref"]
    body = await read_object(request)
    sha = field_str(body, "sha", "Reference", required=True) or ""
    force = body.get("force", False)
    if not isinstance(force, bool):
        raise validation_failed("Reference", "force", "invalid")
    old = try_rev_parse(view.bare, ref)
    if old is None:
        raise ApiError(422, "Reference does not exist")
    new = try_rev_parse(view.bare, sha) if len(sha) == 40 else None
    if new is None:
        raise ApiError(422, "Object does not exist")
    if not force and not is_ancestor(view.bare, old, new):
        raise ApiError(422, "Update is not a fast forward")
    try:
        update_ref(view.bare, ref, new, old)
    except GitError as exc:
        raise ApiError(409, "Reference was modified concurrently") from exc
    _pushed(state, repo, new, ref, user)
    return json_response(ref_json(view, int(repo["id"]), ref, new))


async def delete_ref_route(request: Request) -> Response:
    """`DELETE .../git/refs/{ref}`."""
    user = require_user(request)
    state, repo, view = repo_context(request)
    require_push(state.store, repo, user)
    ref = "refs/" + request.path_params["ref"]
    old = try_rev_parse(view.bare, ref)
    if old is None:
        raise ApiError(422, "Reference does not exist")
    try:
        delete_ref(view.bare, ref, old)
    except GitError as exc:
        raise ApiError(409, "Reference was modified concurrently") from exc
    _pushed(state, repo, ZERO_SHA, ref, user)
    return no_content()


_REPO = "/repos/{owner}/{repo}"
ROUTES = [
    Route(f"{_REPO}/branches/{{branch:path}}", get_branch, methods=["GET"]),
    Route(f"{_REPO}/git/refs", list_refs_route, methods=["GET"]),
    Route(f"{_REPO}/git/refs", create_ref, methods=["POST"]),
    Route(f"{_REPO}/git/refs/{{ref:path}}", list_refs_route, methods=["GET"]),
    Route(f"{_REPO}/git/ref/{{ref:path}}", list_refs_route, methods=["GET"]),
    Route(f"{_REPO}/git/refs/{{ref:path}}", update_ref_route, methods=["PATCH"]),
    Route(f"{_REPO}/git/refs/{{ref:path}}", delete_ref_route, methods=["DELETE"]),
]
