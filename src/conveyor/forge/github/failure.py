"""Turn githubkit's exceptions and GitHub's error bodies into the forge's error tree."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx
from githubkit.exception import (
    AuthCredentialError,
    AuthExpiredError,
    GitHubException,
    GraphQLFailed,
    RateLimitExceeded,
    RequestError,
    RequestFailed,
    RequestTimeout,
)

from conveyor.forge.errors import (
    Conflict,
    ForgeError,
    NotFound,
    NotMergeable,
    RateLimited,
    Transient,
    Unauthorized,
    Validation,
)


def to_forge_error(exc: GitHubException, operation: str, number: int | None) -> ForgeError:
    """The forge error for a githubkit failure of `operation` on issue/PR `number`."""
    inner = getattr(exc, "exc", None)
    if type(exc) is RequestError and isinstance(inner, GitHubException):
        # A failure inside the auth flow (minting an App's installation token)
        # reaches us wrapped; what counts is the inner answer (401, 404, 5xx).
        return to_forge_error(inner, operation, number)
    if isinstance(exc, RateLimitExceeded) and exc.response.status_code < 400:
        # GraphQL reports a spent limit inside a 200 answer.
        return RateLimited(
            operation,
            number,
            "GraphQL rate limit exceeded",
            reset_at=_reset_at(exc.response.raw_response),
            retry_after=exc.retry_after.total_seconds(),
        )
    if isinstance(exc, RequestFailed):
        return from_response(exc.response.raw_response, operation, number)
    if isinstance(exc, RequestTimeout):
        return Transient(operation, number, f"{_where(exc.exc)} did not answer in time")
    if isinstance(exc, RequestError):
        said = str(exc.exc) or type(exc.exc).__name__
        return Transient(operation, number, f"cannot reach {_where(exc.exc)}: {said}")
    if isinstance(exc, GraphQLFailed):
        return _from_graphql(exc, operation, number)
    if isinstance(exc, AuthCredentialError | AuthExpiredError):
        return Unauthorized(operation, number, f"bad credentials: {exc}")
    return ForgeError(operation, number, f"unexpected failure: {exc!r}")


def _where(error: BaseException) -> str:
    """The forge a failed request went to, as `scheme://host:port` (the config's api_url's
    origin), or "the forge" when the error does not carry its request."""
    if not isinstance(error, httpx.RequestError):
        return "the forge"
    try:
        url = error.request.url
    except RuntimeError:  # httpx's error made without its request
        return "the forge"
    port = f":{url.port}" if url.port is not None else ""
    return f"{url.scheme}://{url.host}{port}"


def from_response(response: httpx.Response, operation: str, number: int | None) -> ForgeError:
    """The forge error for an error response (4xx or 5xx)."""
    status = response.status_code
    body = _json(response)
    message = str(body.get("message") or response.reason_phrase or "no message")
    text = f"{status} {message}"
    if _is_rate_limit(response, message):
        secondary = _is_secondary(response, message)
        return RateLimited(
            operation,
            number,
            text,
            reset_at=None if secondary else _reset_at(response),
            retry_after=_retry_after(response),
            secondary=secondary,
        )
    if status in (401, 403):
        return Unauthorized(operation, number, text)
    if status == 404:
        return NotFound(operation, number, text)
    if status == 409:
        return Conflict(operation, number, text)
    if status == 405:
        return NotMergeable(operation, number, text)
    if status in (400, 422):
        return Validation(operation, number, text, _error_list(body))
    if status >= 500:
        return Transient(operation, number, text, retry_after=_retry_after(response))
    return ForgeError(operation, number, text)


def _is_rate_limit(response: httpx.Response, message: str) -> bool:
    if response.status_code == 429:
        return True
    if response.status_code != 403:
        return False
    return (
        "retry-after" in response.headers
        or response.headers.get("x-ratelimit-remaining") == "0"
        or "rate limit" in message.lower()
    )


def _is_secondary(response: httpx.Response, message: str) -> bool:
    """GitHub's secondary limits: its message says so (older answers: "abuse detection"),
    or a `Retry-After` came while the primary bucket still has points."""
    lowered = message.lower()
    if "secondary rate limit" in lowered or "abuse" in lowered:
        return True
    if response.headers.get("x-ratelimit-remaining") == "0":
        return False
    return "retry-after" in response.headers


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        return None  # an HTTP-date: rare, and the reset header or backoff covers it


def _reset_at(response: httpx.Response) -> datetime | None:
    value = response.headers.get("x-ratelimit-reset")
    if value is None:
        return None
    try:
        return datetime.fromtimestamp(int(value), tz=UTC)
    except ValueError:
        return None


def _json(response: httpx.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def _error_list(body: dict[str, Any]) -> tuple[str, ...]:
    """GitHub's `errors` list as one line each: `resource.field: code (message)`."""
    errors = body.get("errors")
    if not isinstance(errors, list):
        return ()
    lines: list[str] = []
    for item in errors:
        if isinstance(item, str):
            lines.append(item)
            continue
        if not isinstance(item, dict):
            continue
        where = ".".join(str(item[k]) for k in ("resource", "field") if item.get(k))
        what = str(item.get("code") or "invalid")
        if item.get("message"):
            what = f"{what} ({item['message']})"
        lines.append(f"{where}: {what}" if where else what)
    return tuple(lines)


def _from_graphql(exc: GraphQLFailed, operation: str, number: int | None) -> ForgeError:
    errors = exc.response.errors or []
    kinds = {error.type for error in errors}
    text = "; ".join(error.message for error in errors) or "GraphQL request failed"
    if "NOT_FOUND" in kinds:
        return NotFound(operation, number, text)
    if "FORBIDDEN" in kinds:
        return Unauthorized(operation, number, text)
    return Validation(operation, number, text)
