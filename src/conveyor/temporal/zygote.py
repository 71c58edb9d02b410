"""The worker's fork server: one process that has imported what a job imports, forking jobs.

A fresh `conveyor job` spends about two seconds importing (the CLI, githubkit, the MCP SDK).
`conveyor drive` and `conveyor run` fork themselves instead (`conveyor.job.fork_start`), but
a worker runs Temporal's threads and must not fork. So it starts this process once
(`python -m conveyor.temporal.zygote FD`): single-threaded, preloaded, it reads requests as
JSON lines on the socket `FD` (`{"id", "args", "env", "log"}`), forks each job in its own
session with its output in `log`, and answers `{"id", "pid"}` and, once it has reaped the
job, `{"pid", "exit"}`. It dies with the worker (`PR_SET_PDEATHSIG`); each job it forks
gets SIGTERM when the fork server dies, so no job outlives its worker unsaved.
"""

from __future__ import annotations

import ctypes
import json
import os
import select
import signal
import socket
import sys
from typing import Any

from conveyor.job.entry import run_conveyor_main
from conveyor.job.fork_start import fork_call, preload, preload_sessions

PR_SET_PDEATHSIG = 1
REAP_EVERY_S = 0.05


def die_with_parent(sig: int, parent: int) -> bool:
    """Ask Linux to send `sig` when the parent dies; False when it already has."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
    return os.getppid() == parent


def _job(args: list[str], server: int) -> int:
    """The forked child: die with the fork server, then run `conveyor ARGS` as an exec would."""
    if not die_with_parent(signal.SIGTERM, server):
        return 1
    return run_conveyor_main(args)


class _Server:
    """The request loop over one socket."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buffer = b""
        self.children: set[int] = set()

    def send(self, message: dict[str, Any]) -> None:
        self.sock.sendall(json.dumps(message).encode() + b"\n")

    def start(self, request: dict[str, Any]) -> None:
        args = [str(a) for a in request["args"]]
        env = {str(k): str(v) for k, v in request["env"].items()}
        try:
            log = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        except OSError as exc:
            self.send({"id": request["id"], "error": f"cannot open {request['log']}: {exc}"})
            return
        try:
            me = os.getpid()
            pid = fork_call(lambda: _job(args, me), env, new_session=True, stdout_fd=log)
        finally:
            os.close(log)
        self.children.add(pid)
        self.send({"id": request["id"], "pid": pid})

    def reap(self) -> None:
        for pid in list(self.children):
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                self.children.discard(pid)
                self.send({"pid": pid, "exit": os.waitstatus_to_exitcode(status)})

    def serve(self) -> None:
        while True:
            ready, _, _ = select.select([self.sock], [], [], REAP_EVERY_S)
            if ready:
                data = self.sock.recv(65536)
                if not data:
                    return  # the worker has gone: its jobs get SIGTERM as this process ends
                self.buffer += data
                while b"\n" in self.buffer:
                    line, self.buffer = self.buffer.split(b"\n", 1)
                    self.start(json.loads(line))
            self.reap()


def main() -> int:
    """`python -m conveyor.temporal.zygote FD PARENT_PID`."""
    fd, parent = int(sys.argv[1]), int(sys.argv[2])
    if not die_with_parent(signal.SIGKILL, parent):
        return 1
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the worker decides what a Ctrl-C stops
    preload()
    preload_sessions()
    sock = socket.socket(fileno=fd)
    _Server(sock).serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
