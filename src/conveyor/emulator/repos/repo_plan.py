"""A repository's plan as far as pull requests go: private or not, and whether drafts exist.

GitHub refuses draft PRs in private repositories on its Free and Pro plans with
a 422 "Draft pull requests are not supported in this repository.". The
emulator's repositories take drafts until an administrator says otherwise:
`set_plan` (or `POST /_conveyor/repos/{owner}/{repo}/plan`).
"""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from conveyor.emulator.model.admin import AdminError, store_for
from conveyor.emulator.model.http import ApiError, emulator, json_response, read_object
from conveyor.emulator.model.records import repo_row, split_slug
from conveyor.emulator.model.store import Store, register_schema

register_schema(
    """
CREATE TABLE IF NOT EXISTS repo_plans (
    repo_id INTEGER PRIMARY KEY, drafts INTEGER NOT NULL DEFAULT 1);
"""
)
DRAFTS_REFUSED = "Draft pull requests are not supported in this repository."


def drafts_allowed(store: Store, repo_id: int) -> bool:
    """Whether the repository takes draft PRs (yes unless its plan says no)."""
    row = store.one("SELECT drafts FROM repo_plans WHERE repo_id = ?", (repo_id,))
    return row is None or bool(row["drafts"])


def set_plan(
    data_dir: Path, slug: str, *, private: bool, drafts: bool, store: Store | None = None
) -> None:
    """Make OWNER/NAME private (or public) and take (or refuse) draft PRs."""
    try:
        owner, name = split_slug(slug)
    except ValueError as exc:
        raise AdminError(str(exc)) from exc
    with store_for(data_dir, store) as opened:
        repo = repo_row(opened, owner, name)
        if repo is None:
            msg = f"repository {slug!r} does not exist"
            raise AdminError(msg)
        with opened.tx() as conn:
            conn.execute("UPDATE repos SET private = ? WHERE id = ?", (int(private), repo["id"]))
            conn.execute(
                "INSERT OR REPLACE INTO repo_plans (repo_id, drafts) VALUES (?, ?)",
                (repo["id"], int(drafts)),
            )


async def post_plan(request: Request) -> Response:
    """`POST /_conveyor/repos/{owner}/{repo}/plan` with `private` and `drafts` booleans."""
    body = await read_object(request)
    private, drafts = body.get("private", False), body.get("drafts", True)
    if not isinstance(private, bool) or not isinstance(drafts, bool):
        raise ApiError(422, "private and drafts must be booleans")
    state = emulator(request)
    slug = f"{request.path_params['owner']}/{request.path_params['repo']}"
    try:
        set_plan(state.data_dir, slug, private=private, drafts=drafts, store=state.store)
    except AdminError as exc:
        raise ApiError(404, str(exc)) from exc
    return json_response({"private": private, "drafts": drafts})


ROUTES = [Route("/_conveyor/repos/{owner}/{repo}/plan", post_plan, methods=["POST"])]
