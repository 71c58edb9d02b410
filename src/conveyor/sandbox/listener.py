"""A Unix socket served one thread per connection, in a private folder under a short tmp.

The job's MCP endpoint and a box's network proxy are both this: the socket sits in a folder
of mode 0700 (its path fits AF_UNIX's 108 bytes whatever the job folder's length), each
connection is served on a daemon thread, and `close()` ends them all within `JOIN_S`.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import tempfile
import threading
import time
from pathlib import Path

from conveyor.sandbox.quiet_threads import worker

JOIN_S = 2.0  # how long close() waits for its threads; they are daemons, so none can hang a job
MAX_TMP = 60  # a longer temp folder would leave too little of AF_UNIX's 108 bytes


def short_tmp() -> str:
    """The temp folder, or /tmp when the configured one is too long for a socket inside it."""
    tmp = tempfile.gettempdir()
    return tmp if len(os.fsencode(tmp)) <= MAX_TMP else "/tmp"  # noqa: S108 - 0700 folder inside


class UnixListener:
    """Listens on `<private folder>/<socket_name>`; `serve(conn)` runs per connection.

    Subclasses set what `serve` needs before calling `__init__`, which starts accepting.
    A connection `serve` adds to `track` (an upstream socket, say) is shut down by `close`.
    """

    def __init__(
        self, prefix: str, socket_name: str, *, backlog: int, name: str, mode: int | None = 0o600
    ) -> None:
        self._dir = Path(tempfile.mkdtemp(prefix=prefix, dir=short_tmp()))
        self.socket_path = self._dir / socket_name
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._listener.bind(str(self.socket_path))
            if mode is not None:
                self.socket_path.chmod(mode)
            self._listener.listen(backlog)
        except BaseException:
            self._listener.close()
            shutil.rmtree(self._dir, ignore_errors=True)
            raise
        self._name = name
        self._lock = threading.Lock()
        self._closed = False
        self._live: set[socket.socket] = set()
        self._threads: list[threading.Thread] = []
        self._acceptor = worker(self._accept, name=name)
        self._acceptor.start()

    @property
    def folder(self) -> Path:
        """The folder holding the socket (a box binds it at the same path)."""
        return self._dir

    def serve(self, conn: socket.socket) -> None:
        """Serve one connection (the subclass's part); the caller closes `conn` after."""
        raise NotImplementedError

    def track(self, sock: socket.socket) -> None:
        """Shut `sock` down on `close`, until `untrack`."""
        with self._lock:
            self._live.add(sock)

    def untrack(self, sock: socket.socket) -> None:
        """Stop tracking `sock`."""
        with self._lock:
            self._live.discard(sock)

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
                    target=self._run, args=(conn,), name=f"{self._name}-conn", daemon=True
                )
                self._live.add(conn)
                self._threads.append(thread)
            thread.start()

    def _run(self, conn: socket.socket) -> None:
        try:
            self.serve(conn)
        finally:
            self.untrack(conn)
            with contextlib.suppress(OSError):
                conn.close()

    def close(self) -> None:
        """Stop accepting, end live connections, wait briefly for their threads, remove files."""
        with self._lock:
            self._closed = True
            live = set(self._live)
            threads = list(self._threads)
        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)  # wakes the blocked accept()
        self._listener.close()
        for sock in live:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        deadline = time.monotonic() + JOIN_S
        for thread in [self._acceptor, *threads]:
            thread.join(max(0.0, deadline - time.monotonic()))
        shutil.rmtree(self._dir, ignore_errors=True)
