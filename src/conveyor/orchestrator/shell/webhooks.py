"""`conveyor run --webhook-port`: GitHub's webhook deliveries wake the loop at once.

The server is the standard library's, served in the loop's own thread while it
naps (`WebhookServer.wait` is the loop's `Wake`), so the orchestrator stays a
single thread and its jobs still start by fork. A delivery that arrives during a
tick waits in the listen backlog and is answered when the nap begins. Each
connection may take at most `READ_TIMEOUT_S` to send its request.

Only a delivery whose HMAC-SHA256 signature checks under the secret is read; a
bad or missing signature is answered 401 and logged in one line. A verified
delivery about this repository's issues, comments, PRs or checks wakes the loop;
the tick then reads the forge as always (the payload is not used). The
pipeline's own changes (sent by its account) wake nothing: the end of the job
that made them does. Deliveries already waiting when one wakes the loop are
answered before the tick, so a burst of changes costs one tick. A finished
check run or suite, or a final commit status, also tells `on_ci` its commit:
the orchestrator's CI wait on it is then due at once. A person's review, review
comment or PR comment tells `on_feedback` the PR's number: a CI wait of the
issue with that PR is due at once too (its job reads the feedback first).
Polling goes on as the fallback for deliveries that never come.
"""

from __future__ import annotations

import select
import socket
import socketserver
import time
from collections.abc import Callable
from datetime import datetime
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Protocol

from conveyor.forge.webhook import (
    DELIVERY_HEADER,
    EVENT_HEADER,
    SIGNATURE_HEADER,
    Delivery,
    read_delivery,
    safe_delivery,
    safe_name,
    signature_ok,
)

READ_TIMEOUT_S = 5.0
MAX_BODY = 25 * 1024 * 1024  # GitHub caps a payload at 25 MB
DRAIN_MAX = 100


class Log(Protocol):
    """Where the server's lines go (the orchestrator's log)."""

    def write(self, now: datetime, line: str) -> None:
        """One line, stamped with `now`."""
        ...


class _Http(HTTPServer):
    """The listening socket; `receiver` answers each request."""

    receiver: WebhookServer

    def server_bind(self) -> None:
        """Bind without the base's reverse DNS lookup of the host (`getfqdn`)."""
        socketserver.TCPServer.server_bind(self)
        host, port = self.server_address[:2]
        self.server_name, self.server_port = str(host), int(port)


class _Http6(_Http):
    """The same on an IPv6 address."""

    address_family = socket.AF_INET6


class _Handler(BaseHTTPRequestHandler):
    """One delivery: read the body, let the receiver judge it, answer."""

    server: _Http
    timeout = READ_TIMEOUT_S
    server_version = "conveyor-webhooks"
    sys_version = ""

    def do_POST(self) -> None:
        """A delivery."""
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            self._answer(411, "a Content-Length is needed")
            return
        if not 0 <= length <= MAX_BODY:
            self._answer(413, "the payload is too large")
            return
        body = self.rfile.read(length)
        headers = {k.lower(): v for k, v in self.headers.items()}
        status, text = self.server.receiver.receive(headers, body)
        self._answer(status, text)

    def do_GET(self) -> None:
        """A person or a health check looking: say what this is."""
        self._answer(200, "conveyor webhook receiver: POST GitHub deliveries here")

    def _answer(self, status: int, text: str) -> None:
        data = (text + "\n").encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base's name
        """Nothing to stderr: the request line is the sender's text."""
        del format, args


class WebhookServer:
    """Receives deliveries on `host:port` for `repo` while the loop naps."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        secret: bytes,
        repo: str,
        account: str,
        log: Log,
        clock: Callable[[], datetime],
        on_ci: Callable[[str], None] | None = None,
        on_feedback: Callable[[int], None] | None = None,
    ) -> None:
        if not secret:
            msg = "the webhook secret is empty"
            raise ValueError(msg)
        self._secret = secret
        self._repo = repo.casefold()
        self._account = account.casefold()
        self._log = log
        self._clock = clock
        self._on_ci = on_ci
        self._on_feedback = on_feedback
        self._http = (_Http6 if ":" in host else _Http)((host, port), _Handler)
        self._http.receiver = self
        self._woken = False
        self.refused = 0
        self.wakes = 0

    @property
    def port(self) -> int:
        """The port it listens on (useful when asked for port 0)."""
        return int(self._http.server_address[1])

    def wait(self, seconds: float, also: int | None = None) -> bool:
        """Answer deliveries for up to `seconds`; True as soon as one asks for a tick, False
        at once when `also` is readable (the loop's child-exit pipe)."""
        deadline = time.monotonic() + seconds
        self._woken = False
        while not self._woken:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            if also is not None:
                ready, _, _ = select.select([self._http.fileno(), also], [], [], left)
                if also in ready:
                    return False
                if not ready:
                    continue
                left = 0.0  # a delivery is waiting: answer it without waiting for another
            self._http.timeout = left
            self._http.handle_request()
        self._drain()
        return True

    def _drain(self) -> None:
        """Answer the deliveries already waiting (a burst), without waiting for more."""
        self._http.timeout = 0
        for _ in range(DRAIN_MAX):
            ready, _, _ = select.select([self._http.socket], [], [], 0)
            if not ready:
                return
            self._http.handle_request()

    def receive(self, headers: dict[str, str], body: bytes) -> tuple[int, str]:
        """Judge one delivery: the status and text to answer it with."""
        if not signature_ok(self._secret, body, headers.get(SIGNATURE_HEADER)):
            self.refused += 1
            event = safe_name(headers.get(EVENT_HEADER))
            delivery = safe_delivery(headers.get(DELIVERY_HEADER))
            self._log.write(
                self._clock(),
                f"webhook refused (401): bad signature, event {event}, delivery {delivery}",
            )
            return 401, "bad signature"
        found = read_delivery(headers, body)
        if not isinstance(found, Delivery):
            return 400, found
        if found.repo.casefold() != self._repo:
            return 202, "ignored: another repository"
        if not found.wakes:
            return 200, "ok"
        if found.ci_sha is not None and self._on_ci is not None:
            self._on_ci(found.ci_sha)  # even the pipeline's own: a CI wait may be on it
        if found.sender.casefold() == self._account:
            return 202, "ignored: the pipeline's own change"
        if found.feedback_pr is not None and self._on_feedback is not None:
            self._on_feedback(found.feedback_pr)
        self._woken = True
        self.wakes += 1
        self._log.write(self._clock(), f"webhook {found.line()}: ticking now")
        return 202, "ticking"

    def close(self) -> None:
        """Stop listening."""
        self._http.server_close()
