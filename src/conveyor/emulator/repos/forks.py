"""Forks and every PR's `refs/pull/N/head`, as GitHub keeps them.

`POST /repos/{owner}/{repo}/forks` copies the repository's default branch into
`CALLER/NAME` (the caller owns it). As in GitHub's fork networks, the parent reads its
forks' objects (`objects/info/alternates`), so a PR whose head is a fork's branch has
its commits in the parent at once. Every PR's head is also published in the base
repository as `refs/pull/N/head` (a fork's PR too), which is how a reader fetches a
PR whatever repository its branch is in.
"""

from __future__ import annotations

from pathlib import Path

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from conveyor.emulator.model.admin import AdminError
from conveyor.emulator.model.fork_rows import fork_owned_by, parent_of, record_fork
from conveyor.emulator.model.http import (
    ApiError,
    base_url,
    emulator,
    json_response,
    read_json,
    require_user,
)
from conveyor.emulator.model.records import bare_repo_path, require_repo
from conveyor.emulator.model.state import EmulatorState
from conveyor.emulator.repos.create import create_repo
from conveyor.emulator.repos.pull_shape import repo_view
from conveyor.emulator.repos.pushes import head_branch_sha, publish_head

__all__ = ["fork_repo", "head_branch_sha", "is_fork", "post_fork", "publish_head"]


def _share_objects(parent: Path, fork: Path) -> None:
    """Let the parent read the fork's objects (GitHub's fork networks share storage)."""
    alternates = parent / "objects" / "info" / "alternates"
    alternates.parent.mkdir(parents=True, exist_ok=True)
    known = alternates.read_text(encoding="utf-8").splitlines() if alternates.exists() else []
    line = str((fork / "objects").resolve())
    if line not in known:
        alternates.write_text("\n".join([*known, line]) + "\n", encoding="utf-8")


def fork_repo(state: EmulatorState, owner: str, name: str, login: str) -> int:
    """Fork OWNER/NAME into LOGIN/NAME (its default branch); the fork's id (an existing
    fork of the caller's is answered again, as GitHub does)."""
    parent = require_repo(state.store, owner, name)
    existing = fork_owned_by(state.store, int(parent["id"]), login)
    if existing is not None:
        return int(existing["id"])
    source = bare_repo_path(state.data_dir, str(parent["owner_login"]), str(parent["name"]))
    created = create_repo(
        state.data_dir,
        f"{login}/{parent['name']}",
        source,
        default_branch=str(parent["default_branch"]),
        store=state.store,
    )
    with state.store.tx() as conn:
        record_fork(conn, created.repo_id, int(parent["id"]))
    fork_path = bare_repo_path(state.data_dir, login, str(parent["name"]))
    _share_objects(source, fork_path)
    return created.repo_id


def is_fork(state: EmulatorState, repo_id: int) -> bool:
    """Whether the repository is a fork of another."""
    return parent_of(state.store, repo_id) is not None


async def post_fork(request: Request) -> Response:
    """`POST /repos/{owner}/{repo}/forks`: 202 with the fork (into the caller's account)."""
    user = require_user(request)
    body = await read_json(request) if await request.body() else None
    if body is not None and not isinstance(body, dict):
        raise ApiError(400, "Problems parsing JSON")
    if isinstance(body, dict) and body.get("organization") is not None:
        raise ApiError(422, "Forking into an organization is not supported here")
    state = emulator(request)
    owner, name = request.path_params["owner"], request.path_params["repo"]
    try:
        fork_id = await run_in_threadpool(fork_repo, state, owner, name, str(user["login"]))
    except AdminError as exc:
        raise ApiError(422, str(exc)) from exc
    row = state.store.one(
        "SELECT repos.*, users.login AS owner_login FROM repos JOIN users "
        "ON users.id = repos.owner_id WHERE repos.id = ?",
        (fork_id,),
    )
    assert row is not None
    data = dict(repo_view(state, base_url(request), row).repo)
    data["fork"] = True
    return json_response(data, status=202)


ROUTES = [Route("/repos/{owner}/{repo}/forks", post_fork, methods=["POST"])]
