"""The job's MCP endpoint: the session's tools served on a Unix socket that `mcp-relay` joins."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from conveyor.agents.mcp_server import serve
from conveyor.agents.reply_gate import ReplyGate

SOCKET_NAME = "mcp.sock"
JOIN_S = 2.0  # how long close() waits for its threads; they are daemons, so none can hang a job
MAX_TMP = 60  # a longer temp folder would leave too little of AF_UNIX's 108 bytes


class McpEndpoint:
    """A listening socket; each connection gets a fresh gate and SDK server on its own thread.

    The socket sits in a private folder (mode 0700) under a short temp folder, so its path
    fits a Unix socket whatever the session folder's length; the socket itself is 0600.
    """

    def __init__(self, gate_factory: Callable[[], ReplyGate]) -> None:
        self._gate_factory = gate_factory
        self._dir = Path(tempfile.mkdtemp(prefix="cv-mcp-", dir=_short_tmp()))
        self.socket_path = self._dir / SOCKET_NAME
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._listener.bind(str(self.socket_path))
            self.socket_path.chmod(0o600)
            self._listener.listen(8)
        except BaseException:
            self._listener.close()
            shutil.rmtree(self._dir, ignore_errors=True)
            raise
        self._lock = threading.Lock()
        self._closed = False
        self._live: set[socket.socket] = set()
        self._threads: list[threading.Thread] = []
        self._acceptor = threading.Thread(target=self._accept, name="mcp-endpoint", daemon=True)
        self._acceptor.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return  # close() shut the listener down
            with self._lock:
                if self._closed:
                    conn.close()
                    return
                thread = threading.Thread(
                    target=self._serve, args=(conn,), name="mcp-connection", daemon=True
                )
                self._live.add(conn)
                self._threads.append(thread)
            thread.start()

    def _serve(self, conn: socket.socket) -> None:
        import anyio

        reader = conn.makefile("r", encoding="utf-8", errors="replace", newline="\n")
        writer = conn.makefile("w", encoding="utf-8", newline="\n")
        try:
            gate = self._gate_factory()
            anyio.run(serve, gate, anyio.wrap_file(reader), anyio.wrap_file(writer))
        except Exception as exc:  # noqa: BLE001 - a dropped relay ends its own connection only
            sys.stderr.write(f"conveyor: an MCP connection ended early: {exc!r}\n")
        finally:
            for closing in (reader.close, writer.close, conn.close):
                with contextlib.suppress(OSError):
                    closing()
            with self._lock:
                self._live.discard(conn)

    def close(self) -> None:
        """Stop accepting, end live connections, wait briefly for their threads, remove files."""
        with self._lock:
            self._closed = True
            live = set(self._live)
            threads = list(self._threads)
        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)  # wakes the blocked accept()
        self._listener.close()
        for conn in live:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        deadline = time.monotonic() + JOIN_S
        for thread in [self._acceptor, *threads]:
            thread.join(max(0.0, deadline - time.monotonic()))
        shutil.rmtree(self._dir, ignore_errors=True)

    def __enter__(self) -> McpEndpoint:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _short_tmp() -> str:
    """The temp folder, or /tmp when the configured one is too long for a socket inside it."""
    tmp = tempfile.gettempdir()
    return tmp if len(os.fsencode(tmp)) <= MAX_TMP else "/tmp"  # noqa: S108 - 0700 folder inside
