"""A client killed in the middle of sending a request body costs the forge no exception."""

from __future__ import annotations

import logging
import socket
import time
from urllib.parse import urlsplit

from tests.contract.emulator.conftest import World


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def _count_400(world: World) -> int:
    return int(world.server.stats()["by_status"].get("400", 0))


def test_a_request_whose_client_dies_before_its_body_arrives_is_answered_400_quietly(
    world: World,
) -> None:
    """The body is cut short by the client going away: a 400 is made, nothing is logged."""
    records = _Records()
    logger = logging.getLogger("uvicorn.error")
    logger.addHandler(records)
    try:
        before = _count_400(world)
        url = urlsplit(world.server.url)
        with socket.create_connection((url.hostname, url.port)) as conn:
            head = (
                f"POST {world.repo_path}/issues HTTP/1.1\r\nHost: {url.netloc}\r\n"
                f"Authorization: token {world.writer_token}\r\n"
                "Content-Type: application/json\r\nContent-Length: 500\r\n\r\n"
            )
            conn.sendall(head.encode() + b'{"title": "cut')
        deadline = time.monotonic() + 30
        while _count_400(world) == before:
            assert time.monotonic() < deadline, "the cut request was never answered"
            time.sleep(0.05)
    finally:
        logger.removeHandler(records)
    assert not [m for m in records.messages if "Exception in ASGI application" in m]
