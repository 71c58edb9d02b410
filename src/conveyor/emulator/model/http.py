"""Request helpers every emulator route uses: auth, JSON bodies, errors, pagination, ETags.

How a route module plugs in: write `async def endpoint(request) -> Response`, list it in
the module's `ROUTES: list[Route]`, and add the module to
`app.asgi.ROUTE_MODULES`. Inside: `emulator(request)` for the store and knobs,
`current_user` / `require_user` for the caller, `await read_object(request)` and the
`field_*` helpers for the body, `raise ApiError(...)` (or `not_found()`,
`validation_failed(...)`) for GitHub-shaped errors, and `json_response(...)` /
`paged_response(...)` to answer (weak ETag included; the middleware turns a matching
`If-None-Match` into a 304 and adds the rate-limit headers). A list that pollers repeat
can answer through `etag_cache.conditional`, which skips building an unchanged body.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response

from conveyor.emulator.model.state import EmulatorState

DOC_URL = "https://docs.github.com/rest"
MAX_BODY_CHARS = 65536
MAX_PAGE = 1_000_000  # keeps OFFSET inside SQLite's integers
USER_SCOPE_KEY = "conveyor.user"


class ApiError(Exception):
    """A GitHub-shaped error answer; raised by routes, rendered by the app's handler."""

    def __init__(
        self,
        status: int,
        message: str,
        errors: list[dict[str, Any]] | list[str] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(f"{status} {message}")
        self.status = status
        self.message = message
        self.errors = errors
        self.headers = headers or {}

    def response(self) -> Response:
        """The JSON answer for this error."""
        return error(self.status, self.message, self.errors, self.headers)


def emulator(request: Request) -> EmulatorState:
    """The running emulator's shared state."""
    state: EmulatorState = request.app.state.emulator
    return state


def base_url(request: Request) -> str:
    """The server's base URL as the client reached it, without a trailing slash."""
    return str(request.base_url).rstrip("/")


def json_response(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """A JSON answer; 200s carry a weak ETag of their body (and Link header)."""
    body = json.dumps(data, separators=(",", ":")).encode()
    all_headers = dict(headers or {})
    if status == 200:
        # The Link header is part of what a poller relies on, so it is part of the tag.
        digest = hashlib.sha256(body + all_headers.get("Link", "").encode())
        all_headers["ETag"] = f'W/"{digest.hexdigest()[:40]}"'
    return Response(body, status, all_headers, media_type="application/json; charset=utf-8")


def error(
    status: int,
    message: str,
    errors: list[dict[str, Any]] | list[str] | None = None,
    headers: dict[str, str] | None = None,
) -> Response:
    """A GitHub-shaped error body: message, documentation_url, status, and errors if any."""
    data: dict[str, Any] = {"message": message, "documentation_url": DOC_URL, "status": str(status)}
    if errors is not None:
        data["errors"] = errors
    return json_response(data, status, headers)


def no_content() -> Response:
    """An empty 204 answer."""
    return Response(status_code=204)


def not_found() -> ApiError:
    """GitHub's 404 for anything unknown (or hidden)."""
    return ApiError(404, "Not Found")


def validation_failed(resource: str, field: str, code: str, message: str | None = None) -> ApiError:
    """GitHub's 422 `Validation Failed` with one entry in `errors`."""
    entry: dict[str, Any] = {"resource": resource, "field": field, "code": code}
    if message is not None:
        entry["message"] = message
    return ApiError(422, "Validation Failed", [entry])


def current_user(request: Request) -> sqlite3.Row | None:
    """The user the request's token belongs to, or None when no token was sent."""
    user: sqlite3.Row | None = request.scope.get(USER_SCOPE_KEY)
    return user


def require_user(request: Request) -> sqlite3.Row:
    """The authenticated user; a 401 `Requires authentication` without one."""
    user = current_user(request)
    if user is None:
        raise ApiError(401, "Requires authentication")
    return user


def token_of(header: str) -> str | None:
    """The token of an `Authorization` value, `token X` or `Bearer X`, if any."""
    scheme, _, value = header.partition(" ")
    if scheme.lower() in {"token", "bearer"} and value.strip():
        return value.strip()
    return None


def bearer_token(request: Request) -> str | None:
    """The token of the request's `Authorization: token X` or `Bearer X`, if any."""
    return token_of(request.headers.get("authorization", ""))


async def read_json(request: Request) -> Any:
    """The parsed JSON body (None when empty); 400 `Problems parsing JSON` when malformed.

    A client gone before its body arrived (a job killed mid-request) gets a 400 nobody
    reads, not an exception in the server's log.
    """
    try:
        raw = await request.body()
    except ClientDisconnect as exc:
        raise ApiError(400, "The client went away before its request body arrived") from exc
    if not raw.strip():
        return None
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ApiError(400, "Problems parsing JSON") from exc


async def read_object(request: Request) -> dict[str, Any]:
    """The JSON body as an object (an empty body reads as `{}`); 400 for anything else."""
    data = await read_json(request)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ApiError(400, "Problems parsing JSON")
    return data


def field_str(
    body: dict[str, Any], name: str, resource: str, *, required: bool = False
) -> str | None:
    """A string field (None when absent or null); 422 when missing but required or not a string."""
    value = body.get(name)
    if value is None:
        if required:
            raise validation_failed(resource, name, "missing_field")
        return None
    if not isinstance(value, str):
        raise validation_failed(resource, name, "invalid", f"{name} must be a string")
    if name == "body" and len(value) > MAX_BODY_CHARS:
        raise validation_failed(
            resource, name, "custom", f"body is too long (maximum is {MAX_BODY_CHARS} characters)"
        )
    return value


def field_int(
    body: dict[str, Any], name: str, resource: str, *, required: bool = False
) -> int | None:
    """An integer field (None when absent); 422 when missing but required or not an integer."""
    value = body.get(name)
    if value is None:
        if required:
            raise validation_failed(resource, name, "missing_field")
        return None
    if isinstance(value, bool) or not isinstance(value, int) or abs(value) >= 2**63:
        raise validation_failed(resource, name, "invalid", f"{name} must be a 64-bit integer")
    return value


def field_str_list(body: dict[str, Any], name: str, resource: str) -> list[str] | None:
    """A list-of-strings field (None when absent); 422 when it is anything else."""
    value = body.get(name)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise validation_failed(resource, name, "invalid", f"{name} must be a list of strings")
    return list(value)


@dataclass(frozen=True)
class Page:
    """One page of a list: 1-based `page`, `per_page` (≤ 100) and the SQL offset."""

    page: int
    per_page: int

    @property
    def offset(self) -> int:
        """Rows to skip."""
        return (self.page - 1) * self.per_page


def page_params(request: Request, default_per_page: int = 30) -> Page:
    """`page` and `per_page` from the query; out-of-range or non-numeric values are clamped."""
    page = _int_query(request, "page", 1)
    per_page = _int_query(request, "per_page", default_per_page)
    return Page(page=min(max(page, 1), MAX_PAGE), per_page=min(max(per_page, 1), 100))


def _int_query(request: Request, name: str, default: int) -> int:
    """An integer query parameter, or the default when absent or not a number."""
    raw = request.query_params.get(name)
    try:
        return int(raw) if raw is not None else default
    except ValueError:
        return default


def link_header(request: Request, page: Page, total: int) -> str | None:
    """GitHub's `Link` header (first/prev/next/last) for `total` items, or None for one page."""
    last = max(1, -(-total // page.per_page))
    if last == 1 and page.page == 1:
        return None
    base = f"{base_url(request)}{request.url.path}"
    params = dict(request.query_params)

    def url(number: int) -> str:
        params.update(page=str(number), per_page=str(page.per_page))
        return f"{base}?{urlencode(params)}"

    links: list[str] = []
    if page.page > 1:
        links.append(f'<{url(min(page.page - 1, last))}>; rel="prev"')
    if page.page < last:
        links.append(f'<{url(page.page + 1)}>; rel="next"')
        links.append(f'<{url(last)}>; rel="last"')
    if page.page > 1:
        links.append(f'<{url(1)}>; rel="first"')
    return ", ".join(links)


def paged_response(request: Request, items: list[Any], page: Page, total: int) -> Response:
    """A JSON list answer with its `Link` header."""
    link = link_header(request, page, total)
    return json_response(items, headers={"Link": link} if link else None)
