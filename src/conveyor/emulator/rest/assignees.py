"""Routes for an issue's (or PR's) assignees, the repository's milestones and a PR's
requested reviewers, as GitHub answers them."""

from __future__ import annotations

import sqlite3

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from conveyor.emulator.hooks.events import emit_pull
from conveyor.emulator.model.assign_rows import (
    assignable,
    create_milestone,
    milestone_json,
    people_of,
    remove_people,
    set_people,
)
from conveyor.emulator.model.http import (
    ApiError,
    base_url,
    emulator,
    field_str,
    field_str_list,
    json_response,
    page_params,
    paged_response,
    read_object,
    require_user,
    validation_failed,
)
from conveyor.emulator.model.issue_events import record_review_request
from conveyor.emulator.model.pull_rows import Pull
from conveyor.emulator.model.records import permission_of, require_issue, require_repo, touch_issue
from conveyor.emulator.model.shapes import user_json
from conveyor.emulator.model.store import Store
from conveyor.emulator.repos.pull_shape import pull_json, repo_view
from conveyor.emulator.rest.issues import WRITERS, issue_response
from conveyor.emulator.rest.pulls import repo_context, require_pull


def _writer(store: Store, repo: sqlite3.Row, request: Request) -> sqlite3.Row:
    """The token's user, who must be able to push (403 otherwise)."""
    user = require_user(request)
    if permission_of(store, repo, user["id"]) not in WRITERS:
        raise ApiError(403, "Must have push access to repository")
    return user


async def _assignees(request: Request, *, add: bool) -> Response:
    store = emulator(request).store
    repo = require_repo(store, request.path_params["owner"], request.path_params["repo"])
    issue = require_issue(store, repo["id"], request.path_params["issue_number"])
    _writer(store, repo, request)
    body = await read_object(request)
    logins = field_str_list(body, "assignees", "Issue") or []
    users = assignable(store, repo, logins)
    with store.tx() as conn:
        if add:
            set_people(conn, "issue_assignees", issue["id"], users, replace=False)
        else:
            remove_people(conn, "issue_assignees", issue["id"], users)
        touch_issue(conn, issue["id"])
    return issue_response(store, request, repo, issue["id"], 201 if add else 200)


async def add_assignees(request: Request) -> Response:
    """`POST .../issues/{n}/assignees`: people who cannot be assigned are left out silently."""
    return await _assignees(request, add=True)


async def remove_assignees(request: Request) -> Response:
    """`DELETE .../issues/{n}/assignees`."""
    return await _assignees(request, add=False)


async def list_milestones(request: Request) -> Response:
    """The repository's open milestones, by number."""
    store = emulator(request).store
    repo = require_repo(store, request.path_params["owner"], request.path_params["repo"])
    page = page_params(request)
    rows = store.all(
        "SELECT * FROM milestones WHERE repo_id = ? AND state = 'open' ORDER BY number"
        " LIMIT ? OFFSET ?",
        (repo["id"], page.per_page, page.offset),
    )
    total = store.one(
        "SELECT COUNT(*) AS n FROM milestones WHERE repo_id = ? AND state = 'open'", (repo["id"],)
    )
    items = [milestone_json(store, base_url(request), repo, row) for row in rows]
    return paged_response(request, items, page, int(total["n"]) if total else 0)


async def add_milestone(request: Request) -> Response:
    """`POST .../milestones`: a title the repository has not used yet (422 otherwise)."""
    store = emulator(request).store
    repo = require_repo(store, request.path_params["owner"], request.path_params["repo"])
    user = _writer(store, repo, request)
    body = await read_object(request)
    title = field_str(body, "title", "Milestone", required=True)
    assert title is not None
    taken = store.one(
        "SELECT 1 FROM milestones WHERE repo_id = ? AND title = ?", (repo["id"], title)
    )
    if taken is not None:
        raise validation_failed("Milestone", "title", "already_exists")
    description = field_str(body, "description", "Milestone")
    with store.tx() as conn:
        row = create_milestone(
            store, conn, repo["id"], title, creator_id=user["id"], description=description
        )
    return json_response(milestone_json(store, base_url(request), repo, row), 201)


async def request_reviewers(request: Request) -> Response:
    """`POST .../pulls/{n}/requested_reviewers`: collaborators other than the PR's author; a
    `review_requested` event for each one not requested already."""
    user = require_user(request)
    body = await read_object(request)
    state, repo, view = repo_context(request)
    pull = require_pull(state, repo, request)
    if permission_of(state.store, repo, user["id"]) not in WRITERS:
        raise ApiError(403, "Must have push access to repository")
    logins = field_str_list(body, "reviewers", "PullRequest") or []
    users = assignable(state.store, repo, logins)
    if len(users) != len({login.casefold() for login in logins}):
        raise validation_failed(
            "PullRequest", "reviewers", "custom",
            "Reviews may only be requested from collaborators. One or more of the users or"
            " teams you specified is not a collaborator of the repository.",
        )  # fmt: skip
    if any(u["id"] == pull.author_id for u in users):
        raise validation_failed(
            "PullRequest", "reviewers", "custom",
            "Review cannot be requested from pull request author.",
        )  # fmt: skip
    changed = _change_requests(state.store, repo, pull.issue_id, int(user["id"]), users, add=True)
    _emit_requests(request, repo, pull, changed, "review_requested")
    view = repo_view(state, base_url(request), repo)
    return json_response(pull_json(state, view, pull, full=False), 201)


def _change_requests(
    store: Store, repo: sqlite3.Row, issue_id: int, actor_id: int, users: list[sqlite3.Row], *,
    add: bool,
) -> list[sqlite3.Row]:  # fmt: skip
    """Request (or withdraw) these users' reviews, each change an event by `actor_id`; the
    users whose request changed."""
    with store.tx() as conn:
        asked = {
            int(row[0])
            for row in conn.execute(
                "SELECT user_id FROM review_requests WHERE issue_id = ?", (issue_id,)
            )
        }
        changed = [u for u in users if (int(u["id"]) in asked) != add]
        if add:
            set_people(conn, "review_requests", issue_id, changed, replace=False)
        else:
            remove_people(conn, "review_requests", issue_id, changed)
        event = "review_requested" if add else "review_request_removed"
        for reviewer in changed:
            record_review_request(store, conn, (int(repo["id"]), issue_id), actor_id,
                                  reviewer_id=int(reviewer["id"]), event=event)  # fmt: skip
        if changed:
            touch_issue(conn, issue_id)
    return changed


def _emit_requests(
    request: Request, repo: sqlite3.Row, pull: Pull, users: list[sqlite3.Row], action: str
) -> None:
    """A `pull_request` webhook per changed request, naming the reviewer, as GitHub sends."""
    for user in users:
        reviewer = user_json(base_url(request), user)
        emit_pull(request, repo, pull, action, requested_reviewer=reviewer)


async def remove_reviewers(request: Request) -> Response:
    """`DELETE .../pulls/{n}/requested_reviewers`: a `review_request_removed` event for each
    one whose review was requested; the others are ignored, as on GitHub."""
    user = require_user(request)
    body = await read_object(request)
    state, repo, _ = repo_context(request)
    pull = require_pull(state, repo, request)
    if permission_of(state.store, repo, user["id"]) not in WRITERS:
        raise ApiError(403, "Must have push access to repository")
    if not isinstance(body.get("reviewers"), list):
        raise validation_failed("PullRequest", "reviewers", "missing_field")
    logins = field_str_list(body, "reviewers", "PullRequest") or []
    users = state.store.all(
        f"SELECT * FROM users WHERE login IN ({', '.join('?' for _ in logins)})", logins
    ) if logins else []  # fmt: skip
    changed = _change_requests(state.store, repo, pull.issue_id, int(user["id"]), users, add=False)
    _emit_requests(request, repo, pull, changed, "review_request_removed")
    view = repo_view(state, base_url(request), repo)
    return json_response(pull_json(state, view, pull, full=False))


async def list_reviewers(request: Request) -> Response:
    """`GET .../pulls/{n}/requested_reviewers`: the users asked and not reviewed yet."""
    state, repo, view = repo_context(request)
    pull = require_pull(state, repo, request)
    asked = people_of(state.store, "review_requests", [pull.issue_id]).get(pull.issue_id, [])
    return json_response({"users": [user_json(view.base, u) for u in asked], "teams": []})


_ISSUE = "/repos/{owner}/{repo}/issues/{issue_number:int}/assignees"
_MILESTONES = "/repos/{owner}/{repo}/milestones"
_REVIEWERS = "/repos/{owner}/{repo}/pulls/{number:int}/requested_reviewers"
ROUTES = [
    Route(_ISSUE, add_assignees, methods=["POST"]),
    Route(_ISSUE, remove_assignees, methods=["DELETE"]),
    Route(_MILESTONES, list_milestones, methods=["GET"]),
    Route(_MILESTONES, add_milestone, methods=["POST"]),
    Route(_REVIEWERS, request_reviewers, methods=["POST"]),
    Route(_REVIEWERS, remove_reviewers, methods=["DELETE"]),
    Route(_REVIEWERS, list_reviewers, methods=["GET"]),
]  # fmt: skip
