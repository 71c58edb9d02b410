"""A per-test-process fork server: `conveyor ARGS` run as a fork of a preloaded process.

A fresh `conveyor drive` spends about 2.5 s of CPU importing the CLI, githubkit and the MCP
SDK before it does anything; the suite starts hundreds. The test process has threads (the
forge, fake models), so it must not fork itself: it starts this server once
(`conveyor.testing.forked_run` runs `main` with SOCKET and PARENT), single-threaded and preloaded as
a job is, and asks it over a SOCK_SEQPACKET Unix socket, one connection per command. A
request is one JSON message (`argv`, `env`, `cwd`, and `script` for a Python script run in
place of `conveyor`) carrying the command's stdout and stderr
pipes as file descriptors; the server answers `{"pid"}`, and `{"exit"}` once it has
reaped the child. The child runs the same entry point an exec'd process runs
(`job/entry.py`), in its own session, with exactly the given environment. The server dies with its
parent (`PR_SET_PDEATHSIG`), and each child gets SIGTERM when the server dies.
"""

from __future__ import annotations

import contextlib
import json
import os
import runpy
import select
import signal
import socket
import sys
import time
from pathlib import Path
from typing import Any

from conveyor.job.entry import run_conveyor_main
from conveyor.job.fork_start import fork_call, preload, preload_sessions
from conveyor.temporal.zygote import die_with_parent

MAX_MESSAGE = 1 << 20
GROUP_WAIT_S = 5.0


def _child(request: dict[str, Any], server: int) -> int:
    """The forked child: its own folder, then `conveyor ARGS` as an exec would."""
    if not die_with_parent(signal.SIGTERM, server):
        return 1
    os.chdir(request["cwd"])
    script = request.get("script")
    if script is not None:
        return _run_script(str(script), request["argv"])
    return run_conveyor_main(request["argv"])


def _run_script(path: str, args: list[str]) -> int:
    """`python PATH ARGS` as an exec'd one runs it: its folder first on `sys.path`."""
    sys.argv = [path, *args]
    sys.path.insert(0, str(Path(path).resolve().parent))
    runpy.run_path(path, run_name="__main__")
    return 0


def _await_own_group(pid: int) -> None:
    """Return once the child leads its own process group, as `Popen(start_new_session=True)`
    has when it returns (a test may signal the group at once), or has already ended.
    `setsid` is the child's first step; the bound only guards against a child gone before it."""
    deadline = time.monotonic() + GROUP_WAIT_S
    while time.monotonic() < deadline:
        try:
            if os.getpgid(pid) == pid:
                return
        except ProcessLookupError:
            return
        time.sleep(0.0002)


class _Server:
    """The accept, fork and reap loop."""

    def __init__(self, listener: socket.socket) -> None:
        self.listener = listener
        self.waiting: dict[int, socket.socket] = {}  # child pid -> the connection asking
        self.wake, self.wake_w = os.pipe()
        os.set_blocking(self.wake_w, False)
        signal.signal(signal.SIGCHLD, lambda _sig, _frame: None)
        signal.set_wakeup_fd(self.wake_w, warn_on_full_buffer=False)

    def start(self, conn: socket.socket) -> None:
        try:
            data, fds, _flags, _addr = socket.recv_fds(conn, MAX_MESSAGE, 2)
        except OSError:
            conn.close()
            return
        if len(fds) != 2 or not data:
            for fd in fds:
                os.close(fd)
            conn.close()
            return
        request = json.loads(data)
        env = {str(k): str(v) for k, v in request["env"].items()}
        me = os.getpid()
        out, err = fds
        others = [self.listener, *self.waiting.values(), conn]

        def run() -> int:
            for sock in others:
                sock.close()  # the child answers nothing: only the server speaks
            for fd in (self.wake, self.wake_w, out, err):  # out and err are now 1 and 2
                os.close(fd)
            return _child(request, me)

        try:
            pid = fork_call(run, env, new_session=True, stdout_fd=out, stderr_fd=err)
        finally:
            os.close(out)
            os.close(err)
        _await_own_group(pid)
        self.waiting[pid] = conn
        self._send(conn, {"pid": pid})

    @staticmethod
    def _send(conn: socket.socket, message: dict[str, Any]) -> None:
        # OSError: the client has gone (it timed out and killed the child): nothing to tell
        with contextlib.suppress(OSError):
            conn.send(json.dumps(message).encode())

    def reap(self) -> None:
        while self.waiting:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            conn = self.waiting.pop(pid, None)
            if conn is not None:
                self._send(conn, {"exit": os.waitstatus_to_exitcode(status)})
                conn.close()

    def serve(self) -> None:
        while True:
            listening = self.listener.fileno()
            ready, _, _ = select.select([listening, self.wake], [], [], 1.0)
            if self.wake in ready:
                os.read(self.wake, 4096)
            if listening in ready:
                conn, _ = self.listener.accept()
                self.start(conn)
            self.reap()


def main() -> int:
    """Serve on the socket `argv[1]` for the process `argv[2]`; prints `ready` once listening."""
    path, parent = sys.argv[1], int(sys.argv[2])
    if not die_with_parent(signal.SIGKILL, parent):
        return 1
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the tests' Ctrl-C is for their own children
    preload()
    preload_sessions()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(path)
    listener.listen(64)
    print("ready", flush=True)  # noqa: T201 - the client waits for this line
    _Server(listener).serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
