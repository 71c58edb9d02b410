"""One webhook connection, read without blocking: a whole-request deadline and size caps.

The receiver serves in the loop's own thread, so no read may wait on a sender. Each
connection is read only when `select` says bytes are there, and a request must be
whole (head and body) within `REQUEST_DEADLINE_S` of its connection, however its bytes
trickle in; a sender that is slower, or sends more than the caps, is answered and cut
off. Only `Content-Length` bodies are read (GitHub sends them); every answer closes
the connection.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass, field
from http import HTTPStatus

# GitHub gives a delivery 10 s; a sender that needs longer is not GitHub.
REQUEST_DEADLINE_S = 10.0
MAX_HEAD = 64 * 1024
MAX_BODY = 25 * 1024 * 1024  # GitHub caps a payload at 25 MB
CHUNK = 64 * 1024


@dataclass(frozen=True)
class Request:
    """A whole request: its method, its headers (names in lower case) and its body."""

    method: str
    headers: dict[str, str]
    body: bytes


@dataclass(frozen=True)
class Answer:
    """What to answer a connection with, now."""

    status: int
    text: str


@dataclass
class Conn:
    """A connection being read: what came so far, and when it must be whole."""

    sock: socket.socket
    deadline: float
    buffer: bytearray = field(default_factory=bytearray)
    head: tuple[str, dict[str, str], int] | None = None  # method, headers, body length

    def feed(self) -> Request | Answer | None:
        """Read what is there: the whole request, an answer to send at once (a bad one), or
        None while more is to come. A sender that closed early gets an answer no one reads."""
        try:
            data = self.sock.recv(CHUNK)
        except BlockingIOError:
            return None
        except OSError:
            data = b""
        if not data:
            return Answer(HTTPStatus.BAD_REQUEST, "the request ended early")
        self.buffer += data
        if self.head is None:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                too_long = len(self.buffer) > MAX_HEAD
                return Answer(431, "the request's head is too large") if too_long else None
            parsed = _head(bytes(self.buffer[:end]))
            if isinstance(parsed, Answer):
                return parsed
            self.head = parsed
            del self.buffer[: end + 4]
        method, headers, length = self.head
        if len(self.buffer) < length:
            return None
        return Request(method, headers, bytes(self.buffer[:length]))


def _head(raw: bytes) -> tuple[str, dict[str, str], int] | Answer:
    """The request line and headers: method, headers, body length; or the answer to a bad one."""
    lines = raw.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        return Answer(HTTPStatus.BAD_REQUEST, "not an HTTP/1.x request")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if not sep or not name.strip():
            return Answer(HTTPStatus.BAD_REQUEST, "a header line without a name")
        headers[name.strip().lower()] = value.strip()
    method = parts[0]
    if method != "POST":
        return method, headers, 0
    if "transfer-encoding" in headers:
        return Answer(HTTPStatus.LENGTH_REQUIRED, "a Content-Length is needed")
    text = headers.get("content-length", "")
    if not text.isdigit():
        return Answer(HTTPStatus.LENGTH_REQUIRED, "a Content-Length is needed")
    if int(text) > MAX_BODY:
        return Answer(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "the payload is too large")
    return method, headers, int(text)


def respond(sock: socket.socket, answer: Answer) -> None:
    """Send `answer` without waiting (it fits a socket's buffer; a sender that reads nothing
    loses it), then close the connection."""
    data = (answer.text + "\n").encode()
    reason = HTTPStatus(answer.status).phrase
    head = (
        f"HTTP/1.1 {answer.status} {reason}\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(data)}\r\n"
        "Connection: close\r\n"
        "Server: conveyor-webhooks\r\n\r\n"
    )
    try:
        sock.send(head.encode() + data)
    except OSError:
        pass
    finally:
        sock.close()
