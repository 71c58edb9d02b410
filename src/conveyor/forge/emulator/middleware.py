"""ASGI middleware around every route: tokens, fault knobs, 304s, rate-limit headers, counters.

Routes need nothing from here directly: they read the caller with `http.current_user`,
and answer with `http.json_response`, whose ETag this middleware compares to
`If-None-Match`.
"""

from __future__ import annotations

import json
import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from conveyor.forge.emulator.http import DOC_URL, USER_SCOPE_KEY, token_of
from conveyor.forge.emulator.state import EmulatorState, SecondaryLimit

UNCOUNTED_PREFIX = "/_conveyor"
SECONDARY_MESSAGE = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try "
    "again. If you reach out to GitHub Support for help, please include the request ID "
    "0000:0000:0000000:0000000:00000000."
)
SECONDARY_DOC = (
    "https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api"
    "#about-secondary-rate-limits"
)


def _looks_like_jwt(token: str) -> bool:
    """App JWTs (three dot-separated parts) are checked by the app routes, not here."""
    return token.count(".") == 2


class ForgeMiddleware:
    """Wraps the Starlette app; one instance per emulator."""

    def __init__(self, app: ASGIApp, state: EmulatorState) -> None:
        self.app = app
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Authenticate, maybe inject a fault, run the route, then shape its answer."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        counted = not scope["path"].startswith(UNCOUNTED_PREFIX)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        method: str = scope["method"]
        token = token_of(headers.get("authorization", ""))
        user = None
        if token is not None and not _looks_like_jwt(token):
            user = self.state.store.one(
                "SELECT users.* FROM tokens JOIN users ON users.id = tokens.user_id "
                "WHERE tokens.token = ? AND (tokens.expires_at IS NULL OR tokens.expires_at > ?)",
                (token, time.time()),
            )
            if user is None:
                await self._simple(send, method, 401, {"message": "Bad credentials"}, counted)
                return
        scope[USER_SCOPE_KEY] = user
        user_id: int | None = user["id"] if user is not None else None
        if counted:
            secondary = self.state.take_secondary(user["login"] if user is not None else None)
            if secondary is not None:
                await self._secondary(send, method, secondary)
                return
        if counted and self.state.knobs.fail_rate > 0:
            roll = self.state.rng.random()
            if roll < self.state.knobs.fail_rate:
                await self._fault(send, method, roll < self.state.knobs.fail_rate / 2)
                return
        wanted = {
            tag.strip().removeprefix("W/") for tag in headers.get("if-none-match", "").split(",")
        }
        conditional = method in {"GET", "HEAD"} and bool(wanted - {""})
        not_modified = False

        async def send_wrapper(message: Message) -> None:
            nonlocal not_modified
            if message["type"] == "http.response.start":
                status: int = message["status"]
                out = [(k, v) for k, v in message.get("headers", [])]
                etag = next((v.decode() for k, v in out if k.lower() == b"etag"), None)
                matches = etag is not None and (etag.removeprefix("W/") in wanted or "*" in wanted)
                if conditional and status == 200 and matches:
                    not_modified = True
                    status = 304
                    out = [(k, v) for k, v in out if k.lower() in {b"etag", b"link"}]
                out.extend(self._rate_headers(user_id, status, scope["path"]))
                if counted:
                    self.state.count(method, status, fault=False, path=scope["path"])
                message = {**message, "status": status, "headers": out}
            elif not_modified:
                if message.get("more_body", False):
                    return
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app(scope, receive, send_wrapper)

    def _rate_headers(
        self, user_id: int | None, status: int, path: str
    ) -> list[tuple[bytes, bytes]]:
        """Charge the answer (authenticated non-304s cost a point) and describe the bucket."""
        costs = not path.startswith(UNCOUNTED_PREFIX) and status != 304 and user_id is not None
        limit, used, reset = self.state.charge(user_id, costs=costs)
        resource = "graphql" if path.startswith("/graphql") else "core"
        pairs = {
            "X-RateLimit-Limit": str(limit),
            "X-RateLimit-Remaining": str(max(0, limit - used)),
            "X-RateLimit-Used": str(used),
            "X-RateLimit-Reset": str(reset),
            "X-RateLimit-Resource": resource,
        }
        return [(k.lower().encode(), v.encode()) for k, v in pairs.items()]

    async def _simple(
        self, send: Send, method: str, status: int, data: dict[str, Any], counted: bool
    ) -> None:
        """Answer without running a route."""
        body = json.dumps({**data, "documentation_url": DOC_URL, "status": str(status)}).encode()
        headers = [(b"content-type", b"application/json; charset=utf-8")]
        headers.extend(self._rate_headers(None, status, "/"))
        await self._send(send, status, headers, body)
        if counted:
            self.state.count(method, status, fault=False)

    async def _fault(self, send: Send, method: str, rate_limited: bool) -> None:
        """An injected failure: a 429 with `Retry-After`, or a 502."""
        if rate_limited:
            status, data = 429, {"message": "API rate limit exceeded (injected fault)"}
        else:
            status, data = 502, {"message": "Server Error (injected fault)"}
        body = json.dumps({**data, "documentation_url": DOC_URL, "status": str(status)}).encode()
        headers = [(b"content-type", b"application/json; charset=utf-8")]
        if rate_limited:
            headers.append((b"retry-after", b"1"))
        headers.extend(self._rate_headers(None, status, "/"))
        await self._send(send, status, headers, body)
        self.state.count(method, status, fault=True)

    async def _secondary(self, send: Send, method: str, limit: SecondaryLimit) -> None:
        """An injected secondary rate limit, worded and shaped as GitHub answers one."""
        data = {"message": SECONDARY_MESSAGE, "documentation_url": SECONDARY_DOC}
        body = json.dumps(data).encode()
        headers = [(b"content-type", b"application/json; charset=utf-8")]
        if limit.retry_after is not None:
            headers.append((b"retry-after", str(limit.retry_after).encode()))
        headers.extend(self._rate_headers(None, limit.status, "/"))
        await self._send(send, limit.status, headers, body)
        self.state.count(method, limit.status, fault=True)

    @staticmethod
    async def _send(
        send: Send, status: int, headers: list[tuple[bytes, bytes]], body: bytes
    ) -> None:
        """Send a whole answer."""
        headers = [*headers, (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body, "more_body": False})
