"""Issue 44, route 5: a sender that trickles its request holds neither the loop's nap nor its
wake at a job's end, and a delivery GitHub sends again (the same id) wakes nothing."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from conveyor.forge.webhook import sign
from conveyor.orchestrator.shell.webhooks import WebhookServer
from conveyor.testing import http
from tests.contract.orchestrator.test_webhook_receiver import REPO, SECRET, Lines

DEADLINE_S = 2.0


@pytest.fixture
def server() -> Iterator[WebhookServer]:
    """A receiver whose requests must be whole within DEADLINE_S."""
    served = WebhookServer(
        "127.0.0.1",
        0,
        secret=SECRET,
        repo=REPO,
        account="conveyor-bot",
        log=Lines(),
        clock=lambda: datetime.now(UTC),
        request_deadline_s=DEADLINE_S,
    )
    yield served
    served.close()


def _comment() -> bytes:
    payload = {
        "action": "created",
        "issue": {"number": 12},
        "comment": {"body": "hello"},
        "repository": {"full_name": REPO},
        "sender": {"login": "alice"},
    }
    return json.dumps(payload).encode()


def _post(server: WebhookServer, delivery: str) -> tuple[int, str]:
    body = _comment()
    headers = {
        "X-GitHub-Event": "issue_comment",
        "X-GitHub-Delivery": delivery,
        "X-Hub-Signature-256": sign(SECRET, body),
    }
    done = http.post(f"http://127.0.0.1:{server.port}/", content=body, headers=headers)
    return done.status_code, done.text


class Trickler:
    """An unauthenticated sender: its headers, then one body byte every `every` seconds."""

    def __init__(self, port: int, every: float, length: int = 1000) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port))
        head = f"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: {length}\r\n\r\n"
        self.sock.sendall(head.encode())
        self.stop = threading.Event()
        self.answer = b""
        self.thread = threading.Thread(target=self._run, args=(every,), daemon=True)
        self.thread.start()

    def _run(self, every: float) -> None:
        while not self.stop.wait(every):
            try:
                self.sock.sendall(b"x")
            except OSError:
                break
        try:
            self.sock.settimeout(1.0)
            self.answer = self.sock.recv(4096)
        except OSError:
            pass

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=5)
        self.sock.close()


def test_a_signed_delivery_is_answered_at_once_while_another_sender_trickles(
    server: WebhookServer,
) -> None:
    """The trickler's connection is open and feeding bytes; a signed delivery sent after it
    wakes the loop within a second, long before the trickle would end."""
    trickler = Trickler(server.port, every=0.3)
    woke: list[bool] = []
    waiter = threading.Thread(target=lambda: woke.append(server.wait(30.0)))
    try:
        waiter.start()
        time.sleep(0.5)
        started = time.monotonic()
        assert _post(server, str(uuid.uuid4()))[0] == 202
        waiter.join(timeout=30)
        assert woke == [True]
        assert time.monotonic() - started < 1.5
    finally:
        trickler.close()


def test_a_trickling_sender_is_cut_off_at_its_deadline(server: WebhookServer) -> None:
    """A request not whole within the deadline is answered 408 and its connection closed,
    whatever bytes still come; the wait goes on unwoken to its own end."""
    trickler = Trickler(server.port, every=0.2)
    try:
        started = time.monotonic()
        assert server.wait(DEADLINE_S + 1.5) is False
        assert time.monotonic() - started >= DEADLINE_S
        trickler.stop.set()
        trickler.thread.join(timeout=5)
        assert trickler.answer.startswith(b"HTTP/1.1 408")
    finally:
        trickler.close()


def test_a_jobs_end_ends_the_wait_at_once_while_a_sender_trickles(
    server: WebhookServer,
) -> None:
    """The loop's child-exit pipe ends the nap at once, even with a request half read."""
    read, write = os.pipe()
    trickler = Trickler(server.port, every=0.2)
    try:
        ended: list[float] = []

        def nap() -> None:
            server.wait(30.0, also=read)
            ended.append(time.monotonic())

        napper = threading.Thread(target=nap)
        napper.start()
        time.sleep(0.5)
        exited = time.monotonic()
        os.write(write, b"\x11")
        napper.join(timeout=30)
        assert ended
        assert ended[0] - exited < 0.5
    finally:
        trickler.close()
        os.close(read)
        os.close(write)


def test_a_delivery_sent_again_is_acknowledged_and_wakes_nothing(server: WebhookServer) -> None:
    """GitHub's redelivery reuses the id: 200, no second wake; a new id wakes again."""
    delivery = str(uuid.uuid4())
    waiter = threading.Thread(target=server.wait, args=(30.0,))
    waiter.start()
    assert _post(server, delivery)[0] == 202
    waiter.join(timeout=30)
    assert server.wakes == 1
    woke: list[bool] = []
    waiter = threading.Thread(target=lambda: woke.append(server.wait(1.0)))
    waiter.start()
    status, text = _post(server, delivery)
    waiter.join(timeout=30)
    assert (status, woke, server.wakes) == (200, [False], 1)
    assert "handled already" in text
    waiter = threading.Thread(target=server.wait, args=(30.0,))
    waiter.start()
    assert _post(server, str(uuid.uuid4()))[0] == 202
    waiter.join(timeout=30)
    assert server.wakes == 2
