"""Pull request routes: list, create, get and update (reviews are in `reviews.py`)."""

from __future__ import annotations

import sqlite3

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from conveyor.emulator.hooks.ci import wake
from conveyor.emulator.hooks.events import emit_pull
from conveyor.emulator.hooks.push import sync_pushes
from conveyor.emulator.model.fork_rows import fork_owned_by, head_repo_of
from conveyor.emulator.model.http import (
    ApiError,
    base_url,
    emulator,
    field_str,
    json_response,
    not_found,
    page_params,
    paged_response,
    read_object,
    require_user,
    validation_failed,
)
from conveyor.emulator.model.pull_rows import Pull, get_pull, list_pulls
from conveyor.emulator.model.pull_write import (
    can_write_pull,
    close_pull,
    edit_pull,
    edited_changes,
    open_pull,
    reopen_pull,
)
from conveyor.emulator.model.records import require_repo
from conveyor.emulator.model.state import EmulatorState
from conveyor.emulator.repos.forks import head_branch_sha, publish_head
from conveyor.emulator.repos.mergeability import base_sha_of, refresh
from conveyor.emulator.repos.pull_shape import RepoView, pull_json, repo_view
from conveyor.emulator.repos.pushes import repo_git
from conveyor.emulator.repos.repo_plan import DRAFTS_REFUSED, drafts_allowed
from conveyor.git import is_ancestor, try_rev_parse


def repo_context(request: Request) -> tuple[EmulatorState, sqlite3.Row, RepoView]:
    """The emulator, the repository of the path (404 when unknown) and its view; pushes applied."""
    state = emulator(request)
    sync_pushes(state)
    repo = require_repo(state.store, request.path_params["owner"], request.path_params["repo"])
    return state, repo, repo_view(state, base_url(request), repo)


def require_pull(state: EmulatorState, repo: sqlite3.Row, request: Request) -> Pull:
    """The PR of the path's `number`, or a 404 (also for a plain issue's number)."""
    pull = get_pull(state.store, int(repo["id"]), int(request.path_params["number"]))
    if pull is None:
        raise not_found()
    return pull


def _branch_of(view: RepoView, spec: str, owner: str) -> str:
    """`OWNER:BRANCH` or `BRANCH` as a branch of this repository ('' for another owner)."""
    who, sep, branch = spec.rpartition(":")
    if sep and who.lower() != owner.lower():
        return ""
    return branch


async def list_route(request: Request) -> Response:
    """`GET /repos/{owner}/{repo}/pulls`."""
    state, repo, view = repo_context(request)
    which = request.query_params.get("state", "open")
    if which not in {"open", "closed", "all"}:
        raise validation_failed("PullRequest", "state", "invalid")
    head = request.query_params.get("head")
    pulls = list_pulls(
        state.store,
        int(repo["id"]),
        state=which,
        head_ref=_branch_of(view, head, view.owner) if head else None,
        base_ref=request.query_params.get("base"),
    )
    if head:  # `OWNER:BRANCH` names the repository the branch is in: a fork's PRs are apart
        own = int(repo["id"])
        pulls = [p for p in pulls if head_repo_of(state.store, p.issue_id, own) == own]
    if request.query_params.get("direction") == "asc":
        pulls.reverse()
    page = page_params(request)
    chosen = pulls[page.offset : page.offset + page.per_page]
    items = [pull_json(state, view, pull, full=False) for pull in chosen]
    return paged_response(request, items, page, len(pulls))


def _head_of(
    state: EmulatorState, repo: sqlite3.Row, view: RepoView, spec: str
) -> tuple[str, int | None, str | None]:
    """A new PR's head from `BRANCH` or `OWNER:BRANCH` (OWNER's fork of this repository):
    (branch, the fork's id or None, the branch's SHA or None when there is no such branch)."""
    who, sep, branch = spec.rpartition(":")
    if not sep or who.lower() == view.owner.lower():
        return branch, None, try_rev_parse(view.bare, f"refs/heads/{branch}") if branch else None
    fork = fork_owned_by(state.store, int(repo["id"]), who)
    if fork is None or not branch:
        return branch, None, None
    bare = repo_git(state.store, state.data_dir, int(fork["id"]))
    return branch, int(fork["id"]), try_rev_parse(bare, f"refs/heads/{branch}")


async def create_route(request: Request) -> Response:
    """`POST /repos/{owner}/{repo}/pulls`: open a PR between two existing branches."""
    user = require_user(request)
    state, repo, view = repo_context(request)
    body = await read_object(request)
    title = field_str(body, "title", "PullRequest", required=True)
    text = field_str(body, "body", "PullRequest")
    head_spec = field_str(body, "head", "PullRequest", required=True)
    base = field_str(body, "base", "PullRequest", required=True)
    draft = body.get("draft", False)
    if not isinstance(draft, bool):
        raise validation_failed("PullRequest", "draft", "invalid", "draft must be a boolean")
    assert title is not None
    assert head_spec is not None
    assert base is not None
    head, head_repo_id, head_sha = _head_of(state, repo, view, head_spec)
    if head_sha is None:
        raise validation_failed("PullRequest", "head", "invalid")
    base_sha = try_rev_parse(view.bare, f"refs/heads/{base}")
    if base_sha is None:
        raise validation_failed("PullRequest", "base", "invalid")
    if is_ancestor(view.bare, head_sha, base_sha):
        raise ApiError(
            422,
            "Validation Failed",
            [
                {
                    "resource": "PullRequest",
                    "code": "custom",
                    "message": f"No commits between {base} and {head}",
                }
            ],
        )
    if draft and not drafts_allowed(state.store, int(repo["id"])):
        raise ApiError(422, DRAFTS_REFUSED)
    pull = open_pull(
        state.store,
        int(repo["id"]),
        author_id=int(user["id"]),
        title=title,
        body=text,
        head=(head, head_sha),
        base=(base, base_sha),
        draft=draft,
        head_repo_id=head_repo_id,
    )
    if pull is None:
        raise ApiError(
            422,
            "Validation Failed",
            [
                {
                    "resource": "PullRequest",
                    "code": "custom",
                    "message": f"A pull request already exists for {view.owner}:{head}.",
                }
            ],
        )
    publish_head(state, pull)
    wake(state)
    emit_pull(request, repo, pull, "opened")
    return json_response(pull_json(state, view, pull, full=True), status=201)


async def get_route(request: Request) -> Response:
    """`GET /repos/{owner}/{repo}/pulls/{number}`: mergeability advances one step per read."""
    state, repo, view = repo_context(request)
    pull = refresh(state.store, state.data_dir, require_pull(state, repo, request))
    return json_response(pull_json(state, view, pull, full=True))


async def update_route(request: Request) -> Response:
    """`PATCH /repos/{owner}/{repo}/pulls/{number}`: title, body, state, base."""
    user = require_user(request)
    body = await read_object(request)  # read first: nothing below awaits, so no interleaving
    state, repo, view = repo_context(request)
    pull = require_pull(state, repo, request)
    if not can_write_pull(state.store, pull, int(user["id"])):
        raise ApiError(403, "Must have push access to repository")
    title = field_str(body, "title", "PullRequest")
    text = field_str(body, "body", "PullRequest")
    base = field_str(body, "base", "PullRequest")
    wanted = field_str(body, "state", "PullRequest")
    if wanted not in {None, "open", "closed"}:
        raise validation_failed("PullRequest", "state", "invalid")
    if base is not None and try_rev_parse(view.bare, f"refs/heads/{base}") is None:
        raise validation_failed("PullRequest", "base", "invalid")
    before = pull
    pull = edit_pull(
        state.store, pull, title=title, body=text, base_ref=base, editor_id=int(user["id"])
    )
    changes = edited_changes(before, pull)
    if changes:
        emit_pull(request, repo, pull, "edited", changes=changes)
    if wanted == "closed" and pull.state == "open":
        pull = close_pull(state.store, pull, int(user["id"]), base_sha_of(view.bare, pull))
        emit_pull(request, repo, pull, "closed")
    elif wanted == "open" and pull.state == "closed":
        pull = _reopen(state, view, pull)
        emit_pull(request, repo, pull, "reopened")
    return json_response(pull_json(state, view, pull, full=True))


def _reopen(state: EmulatorState, view: RepoView, pull: Pull) -> Pull:
    if pull.merged:
        raise validation_failed(
            "PullRequest", "state", "invalid", "state cannot be changed. It has been merged."
        )
    head_sha = head_branch_sha(state, pull)
    if head_sha is None:
        raise validation_failed(
            "PullRequest", "state", "invalid", "state cannot be changed. The branch was deleted."
        )
    reopened = reopen_pull(state.store, pull, head_sha)
    if reopened is None:
        raise validation_failed(
            "PullRequest", "state", "invalid", "A pull request already exists for this branch."
        )
    publish_head(state, reopened)
    wake(state)
    return reopened


_PULLS = "/repos/{owner}/{repo}/pulls"
ROUTES = [
    Route(_PULLS, list_route, methods=["GET"]),
    Route(_PULLS, create_route, methods=["POST"]),
    Route(_PULLS + "/{number:int}", get_route, methods=["GET"]),
    Route(_PULLS + "/{number:int}", update_route, methods=["PATCH"]),
]
