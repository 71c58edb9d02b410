"""Check runs: create, update, get, and list a commit's (the newest per name by default)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from conveyor.emulator.hooks.events import emit_check_run
from conveyor.emulator.model.check_rows import (
    CONCLUSIONS,
    check_run,
    check_runs_for,
    insert_check_run,
    latest_by_name,
    update_check_run,
)
from conveyor.emulator.model.http import (
    ApiError,
    field_str,
    json_response,
    not_found,
    page_params,
    read_object,
    require_user,
    validation_failed,
)
from conveyor.emulator.model.records import require_push
from conveyor.emulator.repos.check_shape import check_run_json
from conveyor.emulator.repos.git_cache import resolve_commit_ref
from conveyor.emulator.repos.pull_shape import RepoView
from conveyor.emulator.rest.pulls import repo_context
from conveyor.git import try_rev_parse

_RUN_STATUSES = ("queued", "in_progress", "completed")
_MAX_OUTPUT = 65535


def resolve_commit(view: RepoView, ref: str) -> str:
    """The SHA a commit ref (SHA, branch or tag) names; GitHub's 422 when none."""
    sha = resolve_commit_ref(view.bare, ref)
    if sha is None:
        raise ApiError(422, f"No commit found for SHA: {ref}")
    return sha


def _run_fields(body: dict[str, Any], *, creating: bool) -> dict[str, Any]:
    """The columns a create/update body sets, validated as GitHub does."""
    fields: dict[str, Any] = {}
    for name in ("name", "details_url", "external_id", "started_at", "completed_at"):
        value = field_str(body, name, "CheckRun", required=creating and name == "name")
        if value is not None:
            fields[name] = value
    fields.update(_status_fields(body, completed_at="completed_at" in fields))
    fields.update(_output_fields(body.get("output")))
    return fields


def _status_fields(body: dict[str, Any], *, completed_at: bool) -> dict[str, str]:
    """`status` and `conclusion`: a conclusion completes the run; a completed run needs one."""
    status = field_str(body, "status", "CheckRun")
    if status is not None and status not in _RUN_STATUSES:
        raise validation_failed("CheckRun", "status", "invalid")
    conclusion = field_str(body, "conclusion", "CheckRun")
    if conclusion is not None and conclusion not in CONCLUSIONS:
        raise validation_failed("CheckRun", "conclusion", "invalid")
    if conclusion is None and (status == "completed" or completed_at):
        raise validation_failed("CheckRun", "conclusion", "missing_field")
    if conclusion is not None:
        return {"conclusion": conclusion, "status": "completed"}
    return {} if status is None else {"status": status}


def _output_fields(output: object) -> dict[str, str]:
    """The `output` object's title, summary and text, each a string of bounded length."""
    if output is None:
        return {}
    if not isinstance(output, dict):
        raise validation_failed("CheckRun", "output", "invalid")
    fields: dict[str, str] = {}
    for key in ("title", "summary", "text"):
        value = output.get(key)
        if value is None:
            continue
        if not isinstance(value, str) or len(value) > _MAX_OUTPUT:
            raise validation_failed("CheckRun", f"output.{key}", "invalid")
        fields[key] = value
    return fields


async def create_check_run(request: Request) -> Response:
    """`POST /repos/{owner}/{repo}/check-runs`."""
    user = require_user(request)
    state, repo, view = repo_context(request)
    require_push(state.store, repo, user)
    body = await read_object(request)
    fields = _run_fields(body, creating=True)
    head = field_str(body, "head_sha", "CheckRun", required=True) or ""
    sha = try_rev_parse(view.bare, head) if len(head) == 40 else None
    if sha is None:
        raise ApiError(422, f"No commit found for SHA: {head}")
    name = fields.pop("name")
    status = fields.pop("status", "queued")
    with state.store.tx() as conn:
        run_id = insert_check_run(
            state.store, conn, int(repo["id"]), sha, name, status=status, **fields
        )
    run = check_run(state.store, int(repo["id"]), run_id)
    assert run is not None
    data = check_run_json(view, run)
    emit_check_run(request, repo, data, "created")
    if data["status"] == "completed":
        emit_check_run(request, repo, data, "completed")
    return json_response(data, status=201)


async def check_run_route(request: Request) -> Response:
    """`GET` and `PATCH /repos/{owner}/{repo}/check-runs/{id}`."""
    state, repo, view = repo_context(request)
    run_id = int(request.path_params["run_id"])
    if check_run(state.store, int(repo["id"]), run_id) is None:
        raise not_found()
    before = check_run(state.store, int(repo["id"]), run_id)
    assert before is not None
    if request.method == "PATCH":
        require_push(state.store, repo, require_user(request))
        fields = _run_fields(await read_object(request), creating=False)
        with state.store.tx() as conn:
            update_check_run(conn, run_id, **fields)
    run = check_run(state.store, int(repo["id"]), run_id)
    assert run is not None
    data = check_run_json(view, run)
    if before["status"] != "completed" and run["status"] == "completed":
        emit_check_run(request, repo, data, "completed")
    return json_response(data)


async def list_check_runs(request: Request) -> Response:
    """`GET .../commits/{ref}/check-runs` (newest per name unless `filter=all`)."""
    state, repo, view = repo_context(request)
    sha = resolve_commit(view, request.path_params["ref"])
    runs = check_runs_for(state.store, int(repo["id"]), sha)
    if request.query_params.get("filter", "latest") == "latest":
        runs = list(latest_by_name(runs, "name").values())
    if name := request.query_params.get("check_name"):
        runs = [run for run in runs if run["name"] == name]
    if status := request.query_params.get("status"):
        runs = [run for run in runs if run["status"] == status]
    page = page_params(request)
    chosen = runs[page.offset : page.offset + page.per_page]
    return json_response(
        {"total_count": len(runs), "check_runs": [check_run_json(view, r) for r in chosen]}
    )


_REPO = "/repos/{owner}/{repo}"
ROUTES = [
    Route(f"{_REPO}/check-runs", create_check_run, methods=["POST"]),
    Route(f"{_REPO}/check-runs/{{run_id:int}}", check_run_route, methods=["GET", "PATCH"]),
    Route(f"{_REPO}/commits/{{ref:path}}/check-runs", list_check_runs, methods=["GET"]),
]
