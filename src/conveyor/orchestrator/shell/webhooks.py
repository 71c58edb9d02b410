"""`conveyor run --webhook-port`: GitHub's webhook deliveries wake the loop at once.

The server is served in the loop's own thread while it naps (`WebhookServer.wait`
is the loop's `Wake`), so the orchestrator stays a single thread and its jobs still
start by fork. A delivery that arrives during a tick waits in the listen backlog and
is answered when the nap begins. No read waits on a sender: connections are read
when `select` finds bytes, and each must send its whole request within
`REQUEST_DEADLINE_S` (`webhook_conn.py`), so a trickling sender holds neither a
tick nor the wake at a job's end. A delivery whose `X-GitHub-Delivery` id was
handled already (GitHub's redeliveries reuse it) is acknowledged and wakes nothing.

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
import time
from collections import OrderedDict
from collections.abc import Callable
from datetime import datetime
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
from conveyor.orchestrator.shell.webhook_conn import (
    REQUEST_DEADLINE_S,
    Answer,
    Conn,
    Request,
    respond,
)

DRAIN_MAX = 100
MAX_CONNECTIONS = 32  # read at once; more wait in the listen backlog
BACKLOG = 64
SEEN_MAX = 4096  # delivery ids remembered (GitHub's redeliveries reuse the id)


class Log(Protocol):
    """Where the server's lines go (the orchestrator's log)."""

    def write(self, now: datetime, line: str) -> None:
        """One line, stamped with `now`."""
        ...


def _listen(host: str, port: int) -> socket.socket:
    """A non-blocking listening socket on `host:port` (IPv6 when the host has a colon)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(BACKLOG)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


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
        request_deadline_s: float = REQUEST_DEADLINE_S,
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
        self._deadline_s = request_deadline_s
        self._listener = _listen(host, port)
        self._conns: dict[int, Conn] = {}
        self._seen: OrderedDict[str, None] = OrderedDict()
        self._woken = False
        self.refused = 0
        self.wakes = 0
        self.repeats = 0

    @property
    def port(self) -> int:
        """The port it listens on (useful when asked for port 0)."""
        return int(self._listener.getsockname()[1])

    def wait(self, seconds: float, also: int | None = None) -> bool:
        """Answer deliveries for up to `seconds`; True as soon as one asks for a tick, False
        at once when `also` is readable (the loop's child-exit pipe).

        Nothing here waits on a sender: a connection is read only when bytes are there, and
        one not whole by its deadline is answered 408 and closed. One still coming when the
        wait ends is read on at the next nap, within the same deadline.
        """
        deadline = time.monotonic() + seconds
        self._woken = False
        while not self._woken:
            now = time.monotonic()
            self._expire(now)
            left = deadline - now
            if left <= 0:
                return False
            nearest = min((c.deadline for c in self._conns.values()), default=deadline)
            watched = [self._listener.fileno(), *self._conns, *([also] if also is not None else [])]
            ready, _, _ = select.select(watched, [], [], max(0.0, min(left, nearest - now)))
            if also is not None and also in ready:
                return False
            self._serve(ready)
        self._drain()
        return True

    def _drain(self) -> None:
        """Answer the deliveries already waiting (a burst), without waiting for more."""
        for _ in range(DRAIN_MAX):
            watched = [self._listener.fileno(), *self._conns]
            ready, _, _ = select.select(watched, [], [], 0)
            if not ready:
                return
            self._serve(ready)

    def _serve(self, ready: list[int]) -> None:
        """Accept waiting connections and read the readable ones."""
        if self._listener.fileno() in ready:
            self._accept()
        for fd in ready:
            conn = self._conns.get(fd)
            if conn is None:
                continue
            got = conn.feed()
            if got is None:
                continue
            del self._conns[fd]
            respond(conn.sock, self._answer(got) if isinstance(got, Request) else got)

    def _accept(self) -> None:
        while len(self._conns) < MAX_CONNECTIONS:
            try:
                sock, _ = self._listener.accept()
            except OSError:  # BlockingIOError: nobody waiting any more
                return
            sock.setblocking(False)
            self._conns[sock.fileno()] = Conn(sock, time.monotonic() + self._deadline_s)

    def _expire(self, now: float) -> None:
        """Cut off the connections that did not send a whole request in time."""
        for fd, conn in list(self._conns.items()):
            if conn.deadline <= now:
                del self._conns[fd]
                respond(conn.sock, Answer(408, "the request did not arrive in time"))

    def _answer(self, request: Request) -> Answer:
        if request.method == "GET":
            return Answer(200, "conveyor webhook receiver: POST GitHub deliveries here")
        if request.method != "POST":
            return Answer(405, "POST GitHub deliveries here")
        status, text = self.receive(request.headers, request.body)
        return Answer(status, text)

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
        if self._repeated(found.delivery):
            self.repeats += 1
            return 200, "ok: this delivery was handled already"
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

    def _repeated(self, delivery: str) -> bool:
        """Whether a delivery with this id was handled already (then it changes nothing: a
        redelivery, or a replay); remembers it otherwise. One without an id is never one."""
        if delivery == "?":
            return False
        if delivery in self._seen:
            self._seen.move_to_end(delivery)
            return True
        self._seen[delivery] = None
        if len(self._seen) > SEEN_MAX:
            self._seen.popitem(last=False)
        return False

    def close(self) -> None:
        """Stop listening; drop the connections still being read."""
        for conn in self._conns.values():
            conn.sock.close()
        self._conns.clear()
        self._listener.close()
