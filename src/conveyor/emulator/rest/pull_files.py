"""`GET .../pulls/{n}/files` and `GET .../issues/{n}/events`: what a reviewer reads of a PR.

The files are GitHub's `diff-entry` list (paged, at most 3000); the events are the label
changes with who made them (`labeled-issue-event`, `unlabeled-issue-event`), which is how
a reader tells who asked for a review by label.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from conveyor.emulator.model.http import base_url, emulator, page_params, paged_response
from conveyor.emulator.model.issue_events import event_json, events_of
from conveyor.emulator.model.records import require_issue, require_repo
from conveyor.emulator.repos.mergeability import base_sha_of
from conveyor.emulator.repos.pull_files import FileChange, pull_files
from conveyor.emulator.repos.pull_shape import RepoView
from conveyor.emulator.rest.pulls import repo_context, require_pull


def _entry(view: RepoView, head: str, change: FileChange) -> dict[str, Any]:
    """One `diff-entry`."""
    path = quote(change.filename)
    html = f"{view.base}/{view.owner}/{view.name}"
    data: dict[str, Any] = {
        "sha": change.sha,
        "filename": change.filename,
        "status": change.status,
        "additions": change.additions,
        "deletions": change.deletions,
        "changes": change.additions + change.deletions,
        "blob_url": f"{html}/blob/{head}/{path}",
        "raw_url": f"{html}/raw/{head}/{path}",
        "contents_url": f"{view.api}/contents/{path}?ref={head}",
    }
    if change.patch is not None:
        data["patch"] = change.patch
    if change.previous_filename is not None:
        data["previous_filename"] = change.previous_filename
    return data


async def list_files(request: Request) -> Response:
    """`GET /repos/{owner}/{repo}/pulls/{number}/files`: oldest path first, as git orders them."""
    state, repo, view = repo_context(request)
    pull = require_pull(state, repo, request)
    changes = pull_files(view.bare, base_sha_of(view.bare, pull), pull.head_sha)
    page = page_params(request)
    chosen = changes[page.offset : page.offset + page.per_page]
    items = [_entry(view, pull.head_sha, change) for change in chosen]
    return paged_response(request, items, page, len(changes))


async def list_events(request: Request) -> Response:
    """`GET /repos/{owner}/{repo}/issues/{number}/events`: oldest first (an issue or a PR)."""
    store = emulator(request).store
    owner, name = request.path_params["owner"], request.path_params["repo"]
    repo = require_repo(store, owner, name)
    issue = require_issue(store, int(repo["id"]), int(request.path_params["number"]))
    rows = events_of(store, int(issue["id"]))
    page = page_params(request)
    chosen = rows[page.offset : page.offset + page.per_page]
    base = base_url(request)
    items = [event_json(base, str(repo["owner_login"]), str(repo["name"]), r) for r in chosen]
    return paged_response(request, items, page, len(rows))


ROUTES = [
    Route("/repos/{owner}/{repo}/pulls/{number:int}/files", list_files, methods=["GET"]),
    Route("/repos/{owner}/{repo}/issues/{number:int}/events", list_events, methods=["GET"]),
]
