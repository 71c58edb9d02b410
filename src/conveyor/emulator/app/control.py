"""Emulator-only endpoints under `/_conveyor/`: counters, the request log and fault knobs
(never counted)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from conveyor.emulator.model.http import (
    ApiError,
    emulator,
    json_response,
    read_object,
)
from conveyor.emulator.model.state import SecondaryLimit


async def get_stats(request: Request) -> Response:
    """Request and rate-limit point counters."""
    return json_response(emulator(request).stats_json())


async def get_requests(request: Request) -> Response:
    """The newest answered requests (time, route with numbers folded, status), oldest first."""
    return json_response(emulator(request).requests_json())


async def set_knobs(request: Request) -> Response:
    """Change the fault knobs of the running server (`fail_rate`, `list_lag_ms`,
    `secondary_limit`)."""
    body = await read_object(request)
    knobs = emulator(request).knobs
    fail_rate = body.get("fail_rate", knobs.fail_rate)
    lag = body.get("list_lag_ms", knobs.list_lag_ms)
    if isinstance(fail_rate, bool) or not isinstance(fail_rate, int | float):
        raise ApiError(422, "fail_rate must be a number between 0 and 1")
    if not 0 <= fail_rate <= 1:
        raise ApiError(422, "fail_rate must be a number between 0 and 1")
    if isinstance(lag, bool) or not isinstance(lag, int) or lag < 0:
        raise ApiError(422, "list_lag_ms must be a non-negative integer")
    secondary = _secondary(body.get("secondary_limit"), knobs.secondary)
    knobs.fail_rate = float(fail_rate)
    knobs.list_lag_ms = lag
    knobs.secondary = secondary
    return json_response(emulator(request).stats_json()["knobs"])


def _secondary(value: object, current: SecondaryLimit) -> SecondaryLimit:
    """`secondary_limit: {count, retry_after, status, login}` (each optional) checked."""
    if value is None:
        return current
    if not isinstance(value, dict):
        raise ApiError(422, "secondary_limit must be an object")
    count = value.get("count", 1)
    after = value.get("retry_after", 60)
    status = value.get("status", 403)
    login = value.get("login")
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise ApiError(422, "secondary_limit.count must be a non-negative integer")
    if after is not None and (isinstance(after, bool) or not isinstance(after, int) or after < 0):
        raise ApiError(422, "secondary_limit.retry_after must be a non-negative integer or null")
    if status not in (403, 429):
        raise ApiError(422, "secondary_limit.status must be 403 or 429")
    if login is not None and not isinstance(login, str):
        raise ApiError(422, "secondary_limit.login must be a string or null")
    return SecondaryLimit(count=count, retry_after=after, status=status, login=login)


ROUTES = [
    Route("/_conveyor/stats", get_stats, methods=["GET"]),
    Route("/_conveyor/requests", get_requests, methods=["GET"]),
    Route("/_conveyor/knobs", set_knobs, methods=["POST"]),
]
