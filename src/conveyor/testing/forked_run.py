"""`run_conveyor`: `conveyor ARGS` to completion, forked by this process's fork server.

The answer is the `subprocess.CompletedProcess` that `subprocess.run(..., capture_output=True,
text=True)` gives, and a timeout raises `subprocess.TimeoutExpired` after killing the
command's process group. `CONVEYOR_TEST_EXEC=1` runs every command by exec instead (to
rule the fork server out when a test misbehaves). The server starts on first use and ends
with this process.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from conveyor.job.drive import conveyor_argv

EXEC_ENV = "CONVEYOR_TEST_EXEC"


class _Client:
    """One fork server, started by this process."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="cv-fork-"))
        self.path = str(self.folder / "fork.sock")
        # By `-c`, not `-m`: click names the program after `__main__`'s module when it has one.
        entry = "from conveyor.testing.fork_server import main; raise SystemExit(main())"
        argv = [sys.executable, "-c", entry, self.path, str(os.getpid())]
        self.process = subprocess.Popen(argv, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if line.strip() != b"ready":
            self.process.kill()
            message = f"the fork server did not start (it printed {line!r})"
            raise RuntimeError(message)
        atexit.register(self.close)

    def close(self) -> None:
        self.process.kill()
        self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)

    def run(
        self, args: Sequence[str], env: Mapping[str, str], timeout: float
    ) -> subprocess.CompletedProcess[str]:
        argv = [*conveyor_argv(), *args]
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            conn.connect(self.path)
            request = {"argv": list(args), "env": dict(env), "cwd": str(Path.cwd())}
            socket.send_fds(conn, [json.dumps(request).encode()], [out_w, err_w])
        finally:
            os.close(out_w)
            os.close(err_w)
        try:
            pid = int(json.loads(conn.recv(4096))["pid"])
            return _collect(argv, conn, pid=pid, out_r=out_r, err_r=err_r, timeout=timeout)
        finally:
            conn.close()
            os.close(out_r)
            os.close(err_r)


def _collect(
    argv: list[str],
    conn: socket.socket,
    *,
    pid: int,
    out_r: int,
    err_r: int,
    timeout: float,
) -> subprocess.CompletedProcess[str]:
    """Read both pipes to their end and the exit message; kill the group at the deadline."""
    deadline = time.monotonic() + timeout
    chunks: dict[int, list[bytes]] = {out_r: [], err_r: []}
    open_pipes = {out_r, err_r}
    code: int | None = None
    with selectors.DefaultSelector() as selector:
        for fd in open_pipes:
            selector.register(fd, selectors.EVENT_READ)
        selector.register(conn, selectors.EVENT_READ)
        while open_pipes or code is None:
            left = deadline - time.monotonic()
            if left <= 0:
                _kill_group(pid)
                raise subprocess.TimeoutExpired(
                    argv, timeout, output=_text(chunks[out_r]), stderr=_text(chunks[err_r])
                )
            for key, _ in selector.select(left):
                if key.fileobj is conn:
                    selector.unregister(conn)
                    message = conn.recv(4096)  # empty when the server died: as by SIGKILL
                    code = int(json.loads(message)["exit"]) if message else -signal.SIGKILL
                elif data := os.read(key.fd, 65536):
                    chunks[key.fd].append(data)
                else:
                    selector.unregister(key.fd)
                    open_pipes.discard(key.fd)
    return subprocess.CompletedProcess(argv, code, _text(chunks[out_r]), _text(chunks[err_r]))


def _text(chunks: list[bytes]) -> str:
    return b"".join(chunks).decode(errors="replace").replace("\r\n", "\n")


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)


_LOCK = threading.Lock()
_CLIENTS: dict[int, _Client] = {}


def run_conveyor(
    args: Sequence[str], env: Mapping[str, str], *, timeout: float
) -> subprocess.CompletedProcess[str]:
    """Run `conveyor ARGS` with exactly `env` and wait for it, as `subprocess.run` would."""
    if os.environ.get(EXEC_ENV, "").strip() in {"1", "true"}:
        argv = [*conveyor_argv(), *args]
        return subprocess.run(
            argv, env=dict(env), capture_output=True, text=True, timeout=timeout, check=False
        )
    with _LOCK:
        client = _CLIENTS.get(os.getpid())
        if client is None:
            client = _CLIENTS[os.getpid()] = _Client()
    return client.run(args, env, timeout)


def server_pid() -> int | None:
    """The pid of this process's fork server, once one has started."""
    client = _CLIENTS.get(os.getpid())
    return None if client is None else client.process.pid
