"""The loopback fake model: an HTTP server in a thread that plays a script and records requests."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, ClassVar, Protocol

from conveyor.testing.fake_model import anthropic, responses
from conveyor.testing.fake_model.script import Conversation, Turn, Usage
from conveyor.testing.fake_model.steps import Hangup, Reject


class Player(Protocol):
    """What the server plays: a `Script`, or a `Playbook` of scripts chosen per session."""

    @property
    def usage(self) -> Usage:
        """The usage a token count is answered with."""

    def play(self, conversation: Conversation) -> tuple[Turn, Usage]:
        """The turn for this conversation and the usage to report with it."""


@dataclass(frozen=True)
class RecordedRequest:
    """One request the fake model received, kept whole for assertions."""

    method: str
    path: str
    headers: tuple[tuple[str, str], ...]
    body: bytes

    def contains(self, needle: str) -> bool:
        """Whether `needle` appears anywhere in the path, a header or the body."""
        if needle in self.path or needle.encode() in self.body:
            return True
        return any(needle in name or needle in value for name, value in self.headers)


class FakeModel:
    """A model server on 127.0.0.1 speaking Anthropic Messages and OpenAI Responses SSE.

    Any model name is answered. Use as a context manager; `url` is the base URL
    (`http://127.0.0.1:PORT`), to which clients append `/v1/messages` or `/v1/responses`.
    """

    def __init__(
        self, script: Player, on_request: Callable[[RecordedRequest], None] | None = None
    ) -> None:
        self.script = script
        # Called before each answer, while the CLI waits for it (tests inspect the CLI then).
        self.on_request = on_request
        self._lock = threading.Lock()
        self._requests: list[RecordedRequest] = []
        self._turns: list[Turn] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """The server's base URL."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, in order of arrival."""
        with self._lock:
            return list(self._requests)

    @property
    def turns(self) -> list[Turn]:
        """Every turn played so far (tool calls and texts), in order."""
        with self._lock:
            return list(self._turns)

    def saw(self, needle: str) -> bool:
        """Whether any received request contained `needle`."""
        return any(request.contains(needle) for request in self.requests)

    def __enter__(self) -> FakeModel:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)
        if self.on_request is not None:
            self.on_request(request)

    def _play(self, turn: Turn) -> int:
        """Remember a turn and return its number (used in ids)."""
        with self._lock:
            self._turns.append(turn)
            return len(self._turns)


def _strings(value: object) -> Iterator[str]:
    """Yield every string inside a parsed JSON value (where deferred tool names hide)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _handler_for(model: FakeModel) -> type[BaseHTTPRequestHandler]:
    """A request handler class bound to `model`."""
    return type("Handler", (_ModelHandler,), {"model": model})


class _ModelHandler(BaseHTTPRequestHandler):
    """Answers one request for the fake model in the `model` class attribute."""

    model: ClassVar[FakeModel]
    # HTTP/1.0: each response ends when the connection closes, so SSE needs no chunking.
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        """Stay quiet: requests are recorded, not logged."""

    def do_GET(self) -> None:
        """The model list (empty) for `/models`; anything else is not found."""
        self._record(b"")
        if self.path.split("?")[0].endswith("/models"):
            self._send_json(200, {"object": "list", "data": [], "models": []})
        else:
            self._send_json(404, {"error": {"message": f"fake model: no GET {self.path}"}})

    def do_HEAD(self) -> None:
        """A bare 200: CLIs probe the base URL."""
        self._record(b"")
        self.send_response(200)
        self.end_headers()

    def do_POST(self) -> None:
        """A token count, an Anthropic Messages turn, or an OpenAI Responses turn."""
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        self._record(raw)
        try:
            body: dict[str, Any] = json.loads(raw or b"{}")
        except ValueError:
            self._send_json(400, {"error": {"message": "fake model: body is not JSON"}})
            return
        route = self.path.split("?")[0]
        if route.endswith("/messages/count_tokens"):
            self._send_json(200, {"input_tokens": self.model.script.usage.input_tokens})
        elif route.endswith("/messages"):
            self._answer_messages(body)
        elif route.endswith("/responses"):
            self._answer_responses(body)
        else:
            self._send_json(404, {"error": {"message": f"fake model: no POST {route}"}})

    def _answer_messages(self, body: dict[str, Any]) -> None:
        text = "\n".join(_strings(body))
        turn, usage = self.model.script.play(anthropic.read_conversation(body, text))
        number = self.model._play(turn)
        name = str(body.get("model", "fake"))
        if isinstance(turn, Reject | Hangup):
            self._end_early(turn, anthropic.render_error)
        elif not body.get("stream"):
            data = anthropic.render_json(turn, name, usage, number)
            self._send_bytes(200, "application/json", data)
        else:
            self._send_stream(anthropic.render_sse(turn, name, usage, number))

    def _answer_responses(self, body: dict[str, Any]) -> None:
        text = "\n".join(_strings(body))
        turn, usage = self.model.script.play(responses.read_conversation(body, text))
        number = self.model._play(turn)
        if isinstance(turn, Reject | Hangup):
            self._end_early(turn, responses.render_error)
        else:
            self._send_stream(responses.render_sse(turn, body, usage, number))

    def _end_early(self, turn: Reject | Hangup, render: Callable[[Reject], bytes]) -> None:
        """A scripted refusal of the request (an HTTP error), or a connection dropped unanswered."""
        if isinstance(turn, Hangup):
            self.close_connection = True
            return
        data = render(turn)
        self.send_response(turn.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in turn.headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _record(self, raw: bytes) -> None:
        headers = tuple((name, str(value)) for name, value in self.headers.items())
        self.model._record(RecordedRequest(self.command, self.path, headers, raw))

    def _send_stream(self, frames: Any) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        for frame in frames:
            self.wfile.write(frame)
            self.wfile.flush()

    def _send_json(self, status: int, payload: dict[str, Any]) -> None:
        self._send_bytes(status, "application/json", json.dumps(payload).encode())

    def _send_bytes(self, status: int, kind: str, data: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
