"""A recording webhook receiver for tests, and GitHub's webhook payload description to check.

The receiver is a standard-library server on loopback in a thread: it answers
every POST with a fixed status and keeps each delivery's headers and body.
Payloads are checked against every `tests/data/github-webhooks-*.json` piece, merged
(cut from `@octokit/openapi-webhooks`, which is OpenAPI 3.1).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from openapi_schema_validator import OAS31Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

DATA = Path(__file__).parents[2] / "data"
SPEC_GLOB = "github-webhooks-*.json"
URI = "urn:conveyor:github-webhooks-subset"


@dataclass(frozen=True)
class Received:
    """One delivery as it arrived."""

    headers: dict[str, str]
    body: bytes

    @property
    def event(self) -> str:
        """`X-GitHub-Event`."""
        return self.headers["x-github-event"]

    @property
    def payload(self) -> dict[str, Any]:
        """The JSON body."""
        data: dict[str, Any] = json.loads(self.body)
        return data


class Receiver:
    """Listens on 127.0.0.1 until `close()`; `status` is what it answers."""

    def __init__(self, status: int = 200) -> None:
        self.status = status
        self.got: list[Received] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                headers = {k.lower(): v for k, v in self.headers.items()}
                owner.got.append(Received(headers, body))
                self.send_response(owner.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002
                del format, args

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        """Where to deliver."""
        return f"http://127.0.0.1:{self._server.server_address[1]}/hook"

    def wait(self, what: str, found: Callable[[], bool], timeout: float = 10.0) -> None:
        """Wait until `found()` holds (a bounded poll, failing with `what`)."""
        deadline = time.monotonic() + timeout
        while not found():
            assert time.monotonic() < deadline, f"never received: {what}"
            time.sleep(0.01)

    def one(self, event: str, action: str | None = None) -> Received:
        """The first delivery of `event` (with `action`), waiting for it."""

        def match() -> Received | None:
            for got in list(self.got):
                if got.event == event and (action is None or got.payload.get("action") == action):
                    return got
            return None

        self.wait(f"{event} {action or ''}", lambda: match() is not None)
        found = match()
        assert found is not None
        return found

    def close(self) -> None:
        """Stop listening."""
        self._server.shutdown()
        self._server.server_close()


def _merged() -> dict[str, Any]:
    """The pieces' webhooks and components, together."""
    merged: dict[str, Any] = {}
    for path in sorted(DATA.glob(SPEC_GLOB)):
        piece = json.loads(path.read_text(encoding="utf-8"))
        if not merged:
            merged = piece
            continue
        merged["webhooks"] = {**merged["webhooks"], **piece["webhooks"]}
        for kind, found in piece["components"].items():
            merged["components"][kind] = {**merged["components"].get(kind, {}), **found}
    return merged


@cache
def _description() -> tuple[dict[str, Any], Registry[Any]]:
    document = _merged()
    resource = Resource.from_contents(document, default_specification=DRAFT202012)
    return document, Registry().with_resource(URI, resource)


def payload_errors(event: str, action: str | None, payload: dict[str, Any]) -> list[str]:
    """What in `payload` breaks GitHub's description of `event.action`, one line each."""
    document, registry = _description()
    key = event.replace("_", "-") + ("" if action is None else "-" + action.replace("_", "-"))
    assert key in document["webhooks"], f"{key} is not in the webhooks piece"
    pointer = "/".join(["#/webhooks", key, "post/requestBody/content/application~1json/schema"])
    validator = OAS31Validator({"$ref": f"{URI}{pointer}"}, registry=registry)
    return [
        f"{'/'.join(str(p) for p in error.absolute_path) or '(root)'}: {error.message[:300]}"
        for error in validator.iter_errors(payload)
    ]
