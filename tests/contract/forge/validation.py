"""The validation hook: an httpx transport that checks every request and answer against GitHub.

Requests are checked against the OpenAPI description (path and query
parameters, the JSON body) and GraphQL documents against GitHub's schema;
answers strictly against the description's schema for their status and by
parsing them with githubkit's model for the operation. Ids and numbers are both
integers, so the hook also remembers every issue it has seen: a `sub_issue_id`
that is some issue's number and no issue's id is reported. Violations are
recorded, not raised, so the contract suite fails the test at teardown with
all of them.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

import httpx
from githubkit.graphql import GraphQLResponse
from graphql import GraphQLSchema, parse, validate
from graphql.error import GraphQLError
from pydantic import ValidationError as ModelError

from conveyor.emulator.graphql.endpoint import github_schema
from tests.contract.forge.openapi import Operation, adapter, description

# Statuses GitHub gives on any operation without its description always saying so;
# their bodies must still be GitHub's basic error.
ANY_OPERATION = {401, 403, 404, 429, 500, 502, 503, 504}
BASIC_ERROR = "/components/schemas/basic-error"
# GitHub sends these on every REST answer; the poll's cost accounting relies on them.
RATE_HEADERS = (
    "x-ratelimit-limit",
    "x-ratelimit-remaining",
    "x-ratelimit-used",
    "x-ratelimit-reset",
)
IGNORED = re.compile(r"^/(_conveyor/|$)")  # the forge's own admin paths and page


def graphql_schema() -> GraphQLSchema:
    """GitHub's GraphQL schema.

    The embedded forge ships a byte-identical copy of `tests/data/github-schema.graphql`
    and caches the built schema; building it costs 2-3 s, so the hook shares that
    build instead of making a second one in the same process.
    """
    return github_schema()


def _coerce(value: str, schema: dict[str, Any]) -> Any:
    """A query or path value as the type its schema declares (unchanged when it isn't one)."""
    kind = schema.get("type")
    if kind == "integer" and re.fullmatch(r"-?\d+", value):
        return int(value)
    if kind == "boolean" and value in ("true", "false"):
        return value == "true"
    return value


class ValidatingTransport(httpx.BaseTransport):
    """Wraps a transport; every exchange through it is checked and violations recorded."""

    def __init__(self, inner: httpx.BaseTransport, base_path: str = "/") -> None:
        self.inner = inner
        self.base_path = "/" + base_path.strip("/")
        self.violations: list[str] = []
        self.checked = 0
        self._issue_ids: set[int] = set()
        self._issue_numbers: set[int] = set()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """Check the request, send it, check the answer."""
        operation = self.check_request(request)
        response = self.inner.handle_request(request)
        response.read()
        if operation is None and self._api_path(request) == "/graphql":
            self._check_graphql_answer(response, f"POST /graphql -> {response.status_code}")
        else:
            self.check_response(request, response, operation)
        return response

    def close(self) -> None:
        """Close the wrapped transport."""
        self.inner.close()

    def take(self) -> list[str]:
        """The violations recorded so far, clearing them."""
        found, self.violations = self.violations, []
        return found

    # -- requests ---------------------------------------------------------------
    def _api_path(self, request: httpx.Request) -> str:
        path = request.url.path
        if self.base_path != "/" and path.startswith(self.base_path):
            path = path[len(self.base_path) :] or "/"
        return path

    def check_request(self, request: httpx.Request) -> Operation | None:
        """Record what is wrong with `request`; return the operation it calls."""
        path = self._api_path(request)
        where = f"{request.method} {path}"
        if IGNORED.match(path):
            return None
        if path == "/graphql":
            self._check_graphql(request, where)
            return None
        found = description().match(request.method, path)
        if found is None:
            self.violations.append(f"{where}: no such operation in GitHub's description")
            return None
        operation, values = found
        self.checked += 1
        self._check_params(operation, "path", values, where)
        self._check_params(operation, "query", dict(request.url.params.multi_items()), where)
        pointer = operation.body_pointer()
        if pointer is not None and request.content:
            body = self._json(request.content, f"{where} request body")
            if body is not None:
                self._check_schema(pointer, body, f"{where} request body")
                self._check_ids(body, where)
        return operation

    def _check_params(
        self, operation: Operation, location: str, values: dict[str, str], where: str
    ) -> None:
        params = operation.parameters(location)
        for name, raw in values.items():
            param = params.get(name)
            if param is None:
                self.violations.append(f"{where}: unknown {location} parameter {name!r}")
                continue
            schema = param.get("schema", {})
            errors = list(_plain_validator(json.dumps(schema)).iter_errors(_coerce(raw, schema)))
            for error in errors:
                self.violations.append(
                    f"{where}: {location} parameter {name}={raw!r}: {error.message}"
                )
        for name, param in params.items():
            if param.get("required") and name not in values:
                self.violations.append(f"{where}: missing required {location} parameter {name!r}")

    def _check_ids(self, body: Any, where: str) -> None:
        child = body.get("sub_issue_id") if isinstance(body, dict) else None
        if isinstance(child, int) and child in self._issue_numbers and child not in self._issue_ids:
            self.violations.append(
                f"{where}: sub_issue_id {child} is an issue's number, not its id"
            )

    def _check_graphql(self, request: httpx.Request, where: str) -> None:
        body = self._json(request.content, f"{where} request body")
        query = body.get("query") if isinstance(body, dict) else None
        if not isinstance(query, str):
            self.violations.append(f"{where}: the body has no GraphQL `query` string")
            return
        try:
            errors = validate(graphql_schema(), parse(query))
        except GraphQLError as exc:
            errors = [exc]
        self.violations.extend(f"{where}: {error.message}" for error in errors)

    def _check_graphql_answer(self, response: httpx.Response, where: str) -> None:
        body = self._json(response.content, where)
        if body is None:
            return
        try:
            GraphQLResponse.model_validate(body)
        except ModelError as exc:
            self.violations.append(f"{where}: not GitHub's GraphQL answer shape: {exc}")

    # -- answers ----------------------------------------------------------------
    def check_response(
        self, request: httpx.Request, response: httpx.Response, operation: Operation | None
    ) -> None:
        """Record what is wrong with the answer to `request`."""
        if operation is None:
            return
        status = response.status_code
        where = f"{request.method} {self._api_path(request)} -> {status}"
        missing = [h for h in RATE_HEADERS if h not in response.headers]
        if missing:
            self.violations.append(f"{where}: no {', '.join(missing)} header")
        if status == 304:
            if request.method != "GET" or "if-none-match" not in request.headers:
                self.violations.append(f"{where}: 304 without a conditional GET")
            return
        pointer = self._answer_pointer(operation, status, where)
        if pointer is None:
            return
        body = self._json(response.content, where)
        if body is None:
            return
        self._check_schema(pointer, body, where)
        self._remember_issues(body)
        self._check_kit_model(operation, status, body, where)

    def _answer_pointer(self, operation: Operation, status: int, where: str) -> str | None:
        """The schema the answer's body must match: the operation's, or GitHub's basic error
        for a status any operation may answer; none for a bodiless answer."""
        pointer = operation.response_pointer(status)
        if pointer is False:
            if status not in ANY_OPERATION:
                self.violations.append(f"{where}: status not in GitHub's description")
                return None
            return BASIC_ERROR
        return pointer if isinstance(pointer, str) else None

    def _check_kit_model(self, operation: Operation, status: int, body: Any, where: str) -> None:
        model = operation.kit_model(status) if status < 300 else None
        if model is None:
            return
        try:
            adapter(model).validate_python(body)
        except ModelError as exc:
            self.violations.append(f"{where}: githubkit's model rejects it: {exc}")

    def _remember_issues(self, body: Any) -> None:
        for item in body if isinstance(body, list) else [body]:
            if isinstance(item, dict) and "number" in item and "id" in item:
                self._issue_ids.add(item["id"])
                self._issue_numbers.add(item["number"])

    # -- shared -----------------------------------------------------------------
    def _json(self, content: bytes, where: str) -> Any:
        try:
            return json.loads(content)
        except ValueError:
            self.violations.append(f"{where}: the body is not JSON")
            return None

    def _check_schema(self, pointer: str, value: Any, where: str) -> None:
        for error in description().validator(pointer).iter_errors(value):
            if _null_allowed(error):
                continue
            at = "/".join(str(p) for p in error.absolute_path) or "(root)"
            self.violations.append(f"{where}: {at}: {error.message}")


@cache
def _plain_validator(schema_json: str) -> Any:
    from openapi_schema_validator import OAS30Validator

    return OAS30Validator(json.loads(schema_json))


def _null_allowed(error: Any) -> bool:
    """`null` for a `nullable: true` enum: GitHub sends it (open issues' `state_reason`).

    OAS 3.0's wording leaves whether `nullable` extends `enum` open; GitHub's
    description relies on it, and the validator reads it the strict way.
    """
    schema = error.schema if isinstance(error.schema, dict) else {}
    return error.validator == "enum" and error.instance is None and bool(schema.get("nullable"))
