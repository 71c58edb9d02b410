"""Emulator-only endpoints under `/_conveyor/`: counters and fault knobs (never counted)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from conveyor.forge.emulator.http import (
    ApiError,
    emulator,
    json_response,
    read_object,
)


async def get_stats(request: Request) -> Response:
    """Request and rate-limit point counters."""
    return json_response(emulator(request).stats_json())


async def set_knobs(request: Request) -> Response:
    """Change the fault knobs of the running server (`fail_rate`, `list_lag_ms`)."""
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
    knobs.fail_rate = float(fail_rate)
    knobs.list_lag_ms = lag
    return json_response(emulator(request).stats_json()["knobs"])


ROUTES = [
    Route("/_conveyor/stats", get_stats, methods=["GET"]),
    Route("/_conveyor/knobs", set_knobs, methods=["POST"]),
]
