"""Webhook deliveries leave the emulator from one worker thread, in the order they were made.

Routes put a delivery on the queue and go on: the worker POSTs it to the hook's
URL with GitHub's headers (event, delivery id, hook id, HMAC-SHA256 signature)
and hands the outcome to the delivery's `record` callback, which keeps it for
`GET .../hooks/{id}/deliveries`. A receiver that is down or slow costs only the
worker's time (10 s at most per delivery); GitHub does not retry either.
"""

from __future__ import annotations

import hashlib
import hmac
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlencode

import httpx

TIMEOUT_S = 10.0
USER_AGENT = "GitHub-Hookshot/conveyor-emulator"


@dataclass(frozen=True)
class Outgoing:
    """One delivery of one event to one hook; `body` is what is signed and sent."""

    hook_id: int
    repo_id: int
    url: str
    secret: str
    content_type: str
    event: str
    action: str | None
    guid: str
    payload: bytes

    def body(self) -> bytes:
        """The request body: the JSON itself, or `payload=<JSON>` for a form hook."""
        if self.content_type == "form":
            return urlencode({"payload": self.payload.decode()}).encode()
        return self.payload

    def headers(self, body: bytes) -> dict[str, str]:
        """GitHub's delivery headers, signatures included when the hook has a secret."""
        form = self.content_type == "form"
        headers = {
            "User-Agent": USER_AGENT,
            "Content-Type": "application/x-www-form-urlencoded" if form else "application/json",
            "X-GitHub-Event": self.event,
            "X-GitHub-Delivery": self.guid,
            "X-GitHub-Hook-ID": str(self.hook_id),
            "X-GitHub-Hook-Installation-Target-Type": "repository",
            "X-GitHub-Hook-Installation-Target-ID": str(self.repo_id),
        }
        if self.secret:
            key = self.secret.encode()
            headers["X-Hub-Signature"] = "sha1=" + hmac.new(key, body, hashlib.sha1).hexdigest()
            headers["X-Hub-Signature-256"] = (
                "sha256=" + hmac.new(key, body, hashlib.sha256).hexdigest()
            )
        return headers


@dataclass(frozen=True)
class Outcome:
    """What came of a delivery: the receiver's status code (0: none), a word, the time taken."""

    status_code: int
    status: str
    duration: float


Record = Callable[[Outgoing, Outcome], None]


class HookQueue:
    """The deliveries waiting to go, and the one thread that sends them."""

    def __init__(self) -> None:
        self._queue: queue.Queue[tuple[Outgoing, Record] | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def put(self, outgoing: Outgoing, record: Record) -> None:
        """Queue a delivery (starting the worker on the first one)."""
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="forge-hooks", daemon=True)
                self._thread.start()
        self._queue.put((outgoing, record))

    def stop(self) -> None:
        """Send what is queued, then end the worker (waits at most a few seconds)."""
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is not None:
            self._queue.put(None)
            thread.join(timeout=5)

    def _run(self) -> None:
        with httpx.Client(timeout=TIMEOUT_S, trust_env=False) as client:
            while (item := self._queue.get()) is not None:
                outgoing, record = item
                record(outgoing, _send(client, outgoing))


def _send(client: httpx.Client, outgoing: Outgoing) -> Outcome:
    body = outgoing.body()
    started = time.monotonic()
    try:
        answer = client.post(outgoing.url, content=body, headers=outgoing.headers(body))
    except httpx.TimeoutException:
        return Outcome(0, "timed out", time.monotonic() - started)
    except httpx.HTTPError:
        return Outcome(0, "failed to connect", time.monotonic() - started)
    word = "OK" if answer.is_success else f"Invalid HTTP Response: {answer.status_code}"
    return Outcome(answer.status_code, word, time.monotonic() - started)
