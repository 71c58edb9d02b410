"""`POST /graphql`: documents validated against GitHub's schema; ready-for-review runs.

`markPullRequestReadyForReview` (and `convertPullRequestToDraft`, `updatePullRequest`'s title
and body, `viewer`) are answered, and
`repository { issueOrPullRequest }` with an issue's labels and comments (`issue_query.py`);
anything else that fails validation gets GitHub's `errors` shape.
"""

from __future__ import annotations

import functools
import threading
from importlib import resources
from typing import Any

from graphql import (
    DocumentNode,
    GraphQLError,
    GraphQLSchema,
    build_schema,
    execute_sync,
    parse,
    validate,
)
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from conveyor.emulator.graphql.paging import ArgumentError, NotFoundError
from conveyor.emulator.graphql.pull_query import ThreadQuery
from conveyor.emulator.hooks.events import emit_pull
from conveyor.emulator.model.http import (
    ApiError,
    base_url,
    emulator,
    json_response,
    read_json,
    require_user,
)
from conveyor.emulator.model.pull_rows import Pull, pull_by_node_id
from conveyor.emulator.model.pull_write import (
    can_write_pull,
    edit_pull,
    edited_changes,
    set_draft,
)
from conveyor.emulator.model.store import Store

_SCHEMA: GraphQLSchema | None = None
_SCHEMA_LOCK = threading.Lock()


def github_schema() -> GraphQLSchema:
    """GitHub's GraphQL schema, built on first use (about 1.5 s) and cached."""
    global _SCHEMA
    with _SCHEMA_LOCK:
        if _SCHEMA is None:
            sdl = resources.files("conveyor.emulator.graphql").joinpath(
                "data/github-schema.graphql"
            )
            _SCHEMA = build_schema(
                sdl.read_text(), assume_valid_sdl=True, assume_valid=True, no_location=True
            )
        return _SCHEMA


def on_startup(_state: object) -> None:
    """Build the schema in a background thread so the first request does not block the loop."""
    threading.Thread(target=github_schema, name="graphql-schema", daemon=True).start()


def _checked(query: str) -> tuple[GraphQLSchema, DocumentNode, tuple[GraphQLError, ...]]:
    """The schema (waiting for its build), the parsed document and its validation errors;
    a syntax error raises `GraphQLError`."""
    schema = github_schema()
    return (schema, *_validated(schema, query))


@functools.lru_cache(maxsize=64)
def _validated(schema: GraphQLSchema, query: str) -> tuple[DocumentNode, tuple[GraphQLError, ...]]:
    """The document and its validation errors, kept per query text: a pipeline sends the
    same few documents again and again (only their variables change), and parsing and
    validating one against GitHub's schema took 4 ms of the forge's CPU each time."""
    document = parse(query)
    return document, tuple(validate(schema, document))


class NodeNotFound(Exception):
    """A global node id that names nothing (GitHub's `NOT_FOUND` error type)."""


class Forbidden(Exception):
    """The viewer may not change this node (GitHub's `FORBIDDEN` error type)."""


def _error_json(error: GraphQLError) -> dict[str, Any]:
    data: dict[str, Any] = dict(error.formatted)
    original = error.original_error
    if isinstance(original, NodeNotFound | NotFoundError):
        data["type"] = "NOT_FOUND"
    elif isinstance(original, Forbidden):
        data["type"] = "FORBIDDEN"
    elif isinstance(original, ArgumentError):
        data["type"] = original.kind
    return data


def _pull_json(pull: Pull, store: Store, root: str) -> dict[str, Any]:
    """The fields of GraphQL's `PullRequest` the emulator can answer."""
    row = store.one(
        "SELECT u.login, r.name FROM repos r JOIN users u ON u.id = r.owner_id WHERE r.id = ?",
        (pull.repo_id,),
    )
    owner, name = (row["login"], row["name"]) if row else ("", "")
    state = "MERGED" if pull.merged else ("OPEN" if pull.state == "open" else "CLOSED")
    return {
        "__typename": "PullRequest",
        "id": pull.node_id,
        "databaseId": pull.id,
        "number": pull.number,
        "title": pull.title,
        "body": pull.body or "",
        "isDraft": pull.draft,
        "state": state,
        "merged": pull.merged,
        "closed": pull.state == "closed",
        "headRefName": pull.head_ref,
        "headRefOid": pull.head_sha,
        "baseRefName": pull.base_ref,
        "url": f"{root}/{owner}/{name}/pull/{pull.number}",
        "createdAt": pull.created_at,
        "updatedAt": pull.updated_at,
    }


def _writable_pull(store: Store, input: dict[str, Any], user_id: int) -> Pull:  # noqa: A002
    """The PR a mutation's `pullRequestId` names, when `user_id` may write it (GitHub's errors)."""
    node_id = str(input.get("pullRequestId", ""))
    pull = pull_by_node_id(store, node_id)
    if pull is None:
        raise NodeNotFound(f"Could not resolve to a node with the global id of '{node_id}'")
    if not can_write_pull(store, pull, user_id):
        raise Forbidden("Resource not accessible by integration")
    return pull


def _draft_mutation(request: Request, user_id: int, draft: bool) -> Any:
    """A resolver for markPullRequestReadyForReview (draft False) or convertPullRequestToDraft."""
    state = emulator(request)

    def resolve(_info: Any, input: dict[str, Any]) -> dict[str, Any]:  # noqa: A002 (GraphQL's name)
        pull = _writable_pull(state.store, input, user_id)
        was_draft = pull.draft
        pull = set_draft(state.store, pull, draft=draft)
        if was_draft and not draft:
            repo = _repo_of(state.store, pull)
            if repo is not None:
                emit_pull(request, repo, pull, "ready_for_review")
        return {
            "clientMutationId": input.get("clientMutationId"),
            "pullRequest": _pull_json(pull, state.store, base_url(request)),
        }

    return resolve


def _update_mutation(request: Request, user_id: int) -> Any:
    """A resolver for updatePullRequest's title and body (what REST's PATCH sets of them)."""
    state = emulator(request)

    def resolve(_info: Any, input: dict[str, Any]) -> dict[str, Any]:  # noqa: A002 (GraphQL's name)
        pull = _writable_pull(state.store, input, user_id)
        before = pull
        title, body = input.get("title"), input.get("body")
        pull = edit_pull(
            state.store, pull, title=title, body=body, base_ref=None, editor_id=user_id
        )
        changes = edited_changes(before, pull)
        repo = _repo_of(state.store, pull)
        if changes and repo is not None:
            emit_pull(request, repo, pull, "edited", changes=changes)
        return {
            "clientMutationId": input.get("clientMutationId"),
            "pullRequest": _pull_json(pull, state.store, base_url(request)),
        }

    return resolve


def _repo_of(store: Store, pull: Pull) -> Any:
    """The PR's repository row with its `owner_login` (what the webhooks need)."""
    return store.one(
        "SELECT repos.*, users.login AS owner_login FROM repos "
        "JOIN users ON users.id = repos.owner_id WHERE repos.id = ?",
        (pull.repo_id,),
    )


async def graphql_endpoint(request: Request) -> Response:
    """Validate the document against GitHub's schema and run the mutations the emulator has."""
    user = require_user(request)
    payload = await read_json(request)
    if not isinstance(payload, dict) or not isinstance(payload.get("query"), str):
        raise ApiError(400, "Problems parsing JSON")
    variables = payload.get("variables")
    if variables is not None and not isinstance(variables, dict):
        raise ApiError(400, "Problems parsing JSON")
    try:
        schema, document, problems = await run_in_threadpool(_checked, payload["query"])
    except GraphQLError as exc:
        return json_response({"errors": [_error_json(exc)]})
    if problems:
        return json_response({"errors": [_error_json(e) for e in problems]})
    state = emulator(request)
    query = ThreadQuery(
        state,
        base_url(request),
        user["id"],
        lambda pull: _pull_json(pull, state.store, base_url(request)),
    )
    root = {
        "repository": query.repository,
        "node": query.node,
        "markPullRequestReadyForReview": _draft_mutation(request, user["id"], draft=False),
        "updatePullRequest": _update_mutation(request, user["id"]),
        "convertPullRequestToDraft": _draft_mutation(request, user["id"], draft=True),
        "viewer": {"__typename": "User", "login": user["login"], "databaseId": user["id"]},
    }
    result = execute_sync(
        schema,
        document,
        root_value=root,
        variable_values=variables,
        operation_name=payload.get("operationName"),
    )
    body: dict[str, Any] = {"data": result.data}
    if result.errors:
        body["errors"] = [_error_json(e) for e in result.errors]
    return json_response(body)


ROUTES = [Route("/graphql", graphql_endpoint, methods=["POST"])]
