"""The job's control socket: one JSON request per connection, one JSON answer.

Requests (each one line of JSON, then the client shuts its write side):

- `{"op": "check-reply", "session": KEY, "reply": {...}}` -> `{"ok": true, "findings": [str]}`
- `{"op": "commit", "session": KEY, "paths": [str], "message": str}` ->
  `{"ok": true, "sha": str}` or `{"ok": false, "error": str}`
- `{"op": "steer", "text": str}` -> `{"ok": true}`
- `{"op": "status"}` -> `{"ok": true, ...}`

An unknown op, bad JSON or a handler that raises answers `{"ok": false, "error": ...}`.
The server side (`serve_control`) is what the stage job stands up; the MCP server is a client.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import socket
import socketserver
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conveyor.sandbox.quiet_threads import worker

Answer = dict[str, Any]
Handler = Callable[[Mapping[str, Any]], Answer]
MAX_BYTES = 4 * 1024 * 1024
MAX_SOCKET_PATH = 100  # AF_UNIX's sun_path holds 108 bytes; keep a margin


class ControlError(Exception):
    """The control socket could not be reached or answered nonsense."""


def request_control(path: Path, request: Mapping[str, Any], timeout: float = 60.0) -> Answer:
    """Send one request to the control socket at `path` and return its answer."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(_connect_path(path))
            sock.sendall(json.dumps(request).encode() + b"\n")
            sock.shutdown(socket.SHUT_WR)
            data = _read_all(sock)
    except OSError as exc:
        msg = f"control socket {path}: {exc}"
        raise ControlError(msg) from exc
    try:
        answer = json.loads(data)
    except ValueError as exc:
        msg = f"control socket {path}: the answer is not JSON ({exc})"
        raise ControlError(msg) from exc
    if not isinstance(answer, dict):
        msg = f"control socket {path}: the answer is not an object"
        raise ControlError(msg)
    return answer


def _connect_path(path: Path) -> str:
    """Where to connect: a symlinked socket (see `ControlServer`) is followed first."""
    return os.path.realpath(path) if path.is_symlink() else str(path)


def _read_all(sock: socket.socket) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while chunk := sock.recv(65536):
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_BYTES:
            break
    return b"".join(chunks)


@dataclass(frozen=True)
class ControlHandlers:
    """The job's callbacks, by op; a missing one answers an error naming the op."""

    check_reply: Handler | None = None
    commit: Handler | None = None
    steer: Handler | None = None
    status: Handler | None = None

    def answer(self, request: Mapping[str, Any]) -> Answer:
        """Dispatch one decoded request."""
        handlers = {
            "check-reply": self.check_reply,
            "commit": self.commit,
            "steer": self.steer,
            "status": self.status,
        }
        op = request.get("op")
        handler = handlers.get(op) if isinstance(op, str) else None
        if handler is None:
            return {"ok": False, "error": f"unsupported op {op!r}"}
        try:
            return handler(request)
        except Exception as exc:  # noqa: BLE001 - one bad request must not kill the socket
            return {"ok": False, "error": f"{op} failed: {exc}"}


class _Server(socketserver.ThreadingUnixStreamServer):
    daemon_threads = True
    handlers: ControlHandlers


class _Request(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        assert isinstance(self.server, _Server)
        line = self.rfile.readline(MAX_BYTES)
        try:
            request = json.loads(line)
        except ValueError as exc:
            answer: Answer = {"ok": False, "error": f"bad request: {exc}"}
        else:
            if isinstance(request, dict):
                answer = self.server.handlers.answer(request)
            else:
                answer = {"ok": False, "error": "bad request: not an object"}
        self.wfile.write(json.dumps(answer).encode())


class ControlServer:
    """A running control socket; `close()` stops it and removes what it created.

    A Unix socket path must fit in about 100 bytes. When `path` is longer, the socket
    is bound in a private short folder under the temp folder (mode 0700, named by a hash
    of `path`) and `path` becomes a symlink to it; `socket_path` is where it really is.
    """

    def __init__(self, path: Path, handlers: ControlHandlers) -> None:
        self.path = path
        self._private: Path | None = None
        if path.is_symlink() or path.exists():
            path.unlink()
        self.socket_path = path
        if len(os.fsencode(path)) > MAX_SOCKET_PATH:
            self._private = _private_dir(path)
            self.socket_path = self._private / "control.sock"
        try:
            self._server = _Server(str(self.socket_path), _Request)
            self._server.handlers = handlers
            self.socket_path.chmod(0o600)
            if self._private is not None:
                path.symlink_to(self.socket_path)
        except BaseException:
            self._remove_files()
            raise
        self._thread = worker(self._accept, name="control")
        self._thread.start()

    def _accept(self) -> None:
        """Hand each connection to a thread of its own until `close` shuts the socket down.

        A blocked `accept` wakes at once on the shutdown; `serve_forever` noticed a close only
        at its next poll, which every job waited out at its end."""
        while True:
            try:
                conn, address = self._server.socket.accept()
            except OSError:
                return
            try:
                self._server.process_request(conn, address)
            except Exception:  # noqa: BLE001 - as serve_forever: one failed start, not the socket
                self._server.handle_error(conn, address)
                self._server.shutdown_request(conn)

    def close(self) -> None:
        """Stop serving and remove the socket (and its symlink and private folder)."""
        with contextlib.suppress(OSError):
            self._server.socket.shutdown(socket.SHUT_RDWR)  # wakes the blocked accept()
        self._thread.join()
        self._server.server_close()
        self._remove_files()

    def _remove_files(self) -> None:
        ours = self.path.is_symlink() and self.path.readlink() == self.socket_path
        if self._private is not None and ours:  # a later server's symlink is left alone
            self.path.unlink(missing_ok=True)
        self.socket_path.unlink(missing_ok=True)
        if self._private is not None:
            shutil.rmtree(self._private, ignore_errors=True)

    def __enter__(self) -> ControlServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _private_dir(path: Path) -> Path:
    """A fresh folder only this user can enter, short enough for a socket inside it."""
    digest = hashlib.sha256(os.fsencode(path)).hexdigest()[:16]
    return Path(tempfile.mkdtemp(prefix=f"cv-{digest}-", dir=_short_tmp()))


def _short_tmp() -> str:
    """The temp folder, or /tmp when the configured one is itself too long for a socket."""
    tmp = tempfile.gettempdir()
    if len(os.fsencode(tmp)) <= MAX_SOCKET_PATH - 48:
        return tmp
    return "/tmp"  # noqa: S108 - mkdtemp makes a private 0700 folder inside it


def serve_control(path: Path, handlers: ControlHandlers) -> ControlServer:
    """Start answering requests at `path` on a background thread.

    Clients may connect through `path` (`request_control` follows the symlink a long path
    becomes) or straight to the returned server's `socket_path`.
    """
    return ControlServer(path, handlers)


def refused_paths(checkout: Path, paths: list[str]) -> list[str]:
    """Paths a commit must refuse: outside the checkout after resolving symlinks, or in .git."""
    root = checkout.resolve()
    refused = []
    for raw in paths:
        target = (root / raw).resolve()
        if target != root and root not in target.parents:
            refused.append(f"{raw}: outside the checkout")
        elif target == root or target.relative_to(root).parts[0] == ".git":
            refused.append(f"{raw}: inside .git or the checkout root itself")
    return refused
