"""ASGI middleware around every route: tokens, fault knobs, 304s, rate-limit headers, counters.

Routes need nothing from here directly: they read the caller with `http.current_user`,
and answer with `http.json_response`, whose ETag this middleware compares to
`If-None-Match`.
"""

from __future__ import annotations

import json
import sqlite3
import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from conveyor.emulator.model.http import DOC_URL, USER_SCOPE_KEY, token_of
from conveyor.emulator.model.state import EmulatorState, SecondaryLimit

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
        known, user = self._caller(headers.get("authorization", ""))
        if not known:
            await self._simple(send, method, 401, {"message": "Bad credentials"}, counted)
            return
        scope[USER_SCOPE_KEY] = user
        if counted and await self._injected(send, method, user):
            return
        answer = _Answer(
            self, send, scope["path"], method, counted,
            user_id=user["id"] if user is not None else None,
            wanted=headers.get("if-none-match", ""),
        )  # fmt: skip
        await self.app(scope, receive, answer.send)

    def _caller(self, authorization: str) -> tuple[bool, sqlite3.Row | None]:
        """Whether the token is good (none, or an app JWT, is), and the user it is for."""
        token = token_of(authorization)
        if token is None or _looks_like_jwt(token):
            return True, None
        user = self.state.store.one(
            "SELECT users.* FROM tokens JOIN users ON users.id = tokens.user_id "
            "WHERE tokens.token = ? AND (tokens.expires_at IS NULL OR tokens.expires_at > ?)",
            (token, time.time()),
        )
        return user is not None, user

    async def _injected(self, send: Send, method: str, user: sqlite3.Row | None) -> bool:
        """Answer with an injected secondary limit or fault, if one is due; whether one was."""
        secondary = self.state.take_secondary(user["login"] if user is not None else None)
        if secondary is not None:
            await self._secondary(send, method, secondary)
            return True
        if self.state.knobs.fail_rate > 0:
            roll = self.state.rng.random()
            if roll < self.state.knobs.fail_rate:
                await self._fault(send, method, roll < self.state.knobs.fail_rate / 2)
                return True
        return False

    def rate_headers(
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
        headers.extend(self.rate_headers(None, status, "/"))
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
        headers.extend(self.rate_headers(None, status, "/"))
        await self._send(send, status, headers, body)
        self.state.count(method, status, fault=True)

    async def _secondary(self, send: Send, method: str, limit: SecondaryLimit) -> None:
        """An injected secondary rate limit, worded and shaped as GitHub answers one."""
        data = {"message": SECONDARY_MESSAGE, "documentation_url": SECONDARY_DOC}
        body = json.dumps(data).encode()
        headers = [(b"content-type", b"application/json; charset=utf-8")]
        if limit.retry_after is not None:
            headers.append((b"retry-after", str(limit.retry_after).encode()))
        headers.extend(self.rate_headers(None, limit.status, "/"))
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


class _Answer:
    """A route's answer on its way out: a 304 for a matching `If-None-Match`, rate headers,
    and the request counted."""

    def __init__(
        self, forge: ForgeMiddleware, send: Send, path: str, method: str, counted: bool, *,
        user_id: int | None, wanted: str,
    ) -> None:  # fmt: skip
        self.forge, self._send, self.path, self.method = forge, send, path, method
        self.counted, self.user_id = counted, user_id
        self.wanted = {tag.strip().removeprefix("W/") for tag in wanted.split(",")}
        self.conditional = method in {"GET", "HEAD"} and bool(self.wanted - {""})
        self.not_modified = False

    async def send(self, message: Message) -> None:
        """Pass one ASGI message on, reshaped."""
        if message["type"] == "http.response.start":
            message = self._start(message)
        elif self.not_modified:
            if message.get("more_body", False):
                return
            message = {"type": "http.response.body", "body": b"", "more_body": False}
        await self._send(message)

    def _start(self, message: Message) -> Message:
        """The response start: 304 with only ETag and Link when the tag matches; rate headers."""
        status: int = message["status"]
        out = [(k, v) for k, v in message.get("headers", [])]
        etag = next((v.decode() for k, v in out if k.lower() == b"etag"), None)
        matches = etag is not None and (
            etag.removeprefix("W/") in self.wanted or "*" in self.wanted
        )
        if self.conditional and status == 200 and matches:
            self.not_modified = True
            status = 304
            out = [(k, v) for k, v in out if k.lower() in {b"etag", b"link"}]
        out.extend(self.forge.rate_headers(self.user_id, status, self.path))
        if self.counted:
            self.forge.state.count(self.method, status, fault=False, path=self.path)
        return {**message, "status": status, "headers": out}
