"""`run_conveyor` and `start_conveyor`: `conveyor ARGS`, forked by this process's fork server.

`run_conveyor` answers the `subprocess.CompletedProcess` that `subprocess.run(...,
capture_output=True, text=True)` gives, and a timeout raises `subprocess.TimeoutExpired`
after killing the command's process group. `start_conveyor` answers a `ForkedCommand`, which
a test signals, polls and reads as it would a `Popen` started in its own session.
`CONVEYOR_TEST_EXEC=1` runs every command by exec instead (to rule the fork server out when
a test misbehaves). The server starts on first use and ends with this process.
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
from typing import Protocol

from conveyor.job.entry import conveyor_argv

EXEC_ENV = "CONVEYOR_TEST_EXEC"


class Process(Protocol):
    """What a test does with a started command: a `subprocess.Popen` or a `ForkedCommand`."""

    @property
    def pid(self) -> int: ...

    @property
    def returncode(self) -> int | None: ...

    def poll(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> int: ...

    def communicate(
        self,
        input: str | None = None,  # noqa: A002 - Popen's name for it
        timeout: float | None = None,
    ) -> tuple[str, str]: ...

    def send_signal(self, sig: int) -> None: ...

    def terminate(self) -> None: ...

    def kill(self) -> None: ...


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

    def start(
        self, args: Sequence[str], env: Mapping[str, str], script: Path | None = None
    ) -> ForkedCommand:
        argv = [*_program(script), *args]
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            conn.connect(self.path)
            request: dict[str, object] = {
                "argv": list(args),
                "env": dict(env),
                "cwd": str(Path.cwd()),
            }
            if script is not None:
                request["script"] = str(script)
            socket.send_fds(conn, [json.dumps(request).encode()], [out_w, err_w])
            pid = int(json.loads(conn.recv(4096))["pid"])
        except BaseException:
            conn.close()
            os.close(out_r)
            os.close(err_r)
            raise
        finally:
            os.close(out_w)
            os.close(err_w)
        return ForkedCommand(argv, conn, pid=pid, out_r=out_r, err_r=err_r)


class ForkedCommand:
    """A command the fork server started: waited on, signalled and read as a `Popen` is.

    `pid` leads its own process group. Its output is read by `communicate` (text, as
    `Popen(..., text=True)` gives it); its exit code comes from the server, which reaps it.
    """

    def __init__(self, argv: list[str], conn: socket.socket, *, pid: int, out_r: int, err_r: int):
        self.args = argv
        self.pid = pid
        self.returncode: int | None = None
        self._conn: socket.socket | None = conn
        self._chunks: dict[int, list[bytes]] = {out_r: [], err_r: []}
        self._out, self._err = out_r, err_r
        self._open = {out_r, err_r}

    def poll(self) -> int | None:
        """The exit code once the command has ended, else None (never blocks)."""
        self._pump(wait_pipes=False, timeout=0.0, poll=True)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """Wait for the exit code (`subprocess.TimeoutExpired` after `timeout` seconds)."""
        self._pump(wait_pipes=False, timeout=timeout)
        assert self.returncode is not None
        return self.returncode

    def communicate(
        self,
        input: str | None = None,  # noqa: A002 - Popen's name for it
        timeout: float | None = None,
    ) -> tuple[str, str]:
        """Read stdout and stderr to their end and wait for the exit code, as `Popen` does."""
        if input is not None:
            msg = "a forked command has no stdin"
            raise ValueError(msg)
        self._pump(wait_pipes=True, timeout=timeout)
        return _text(self._chunks[self._out]), _text(self._chunks[self._err])

    def send_signal(self, sig: int) -> None:
        """Signal the command, unless it has already been reaped."""
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, sig)

    def terminate(self) -> None:
        """SIGTERM."""
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        """SIGKILL."""
        self.send_signal(signal.SIGKILL)

    def _pump(self, *, wait_pipes: bool, timeout: float | None, poll: bool = False) -> None:
        """Read what is ready until the exit code (and, with `wait_pipes`, both ends) is in.

        Past `timeout` seconds: `subprocess.TimeoutExpired`, or for a `poll`, just return.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        with selectors.DefaultSelector() as selector:
            for fd in self._open:
                selector.register(fd, selectors.EVENT_READ)
            if self._conn is not None:
                selector.register(self._conn, selectors.EVENT_READ)
            while self._conn is not None or (wait_pipes and self._open):
                left = None if deadline is None else max(0.0, deadline - time.monotonic())
                ready = selector.select(left)
                if not ready and timeout is not None and left is not None and left <= 0:
                    if poll:
                        return  # nothing more yet
                    out, err = (_text(self._chunks[fd]) for fd in (self._out, self._err))
                    raise subprocess.TimeoutExpired(self.args, timeout, output=out, stderr=err)
                for key, _ in ready:
                    self._take(selector, key)

    def _take(self, selector: selectors.BaseSelector, key: selectors.SelectorKey) -> None:
        if key.fileobj is self._conn:
            selector.unregister(self._conn)
            message = self._conn.recv(4096)  # empty when the server died: as by SIGKILL
            self.returncode = int(json.loads(message)["exit"]) if message else -signal.SIGKILL
            self._conn.close()
            self._conn = None
        elif data := os.read(key.fd, 65536):
            self._chunks[key.fd].append(data)
        else:
            selector.unregister(key.fd)
            self._open.discard(key.fd)
            os.close(key.fd)

    def __del__(self) -> None:
        for fd in self._open:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._open = set()
        if self._conn is not None:
            self._conn.close()


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
    command = _start(args, env, None)
    try:
        out, err = command.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(command.pid)
        command.wait()
        raise
    return subprocess.CompletedProcess([*_program(None), *args], command.wait(), out, err)


def start_conveyor(args: Sequence[str], env: Mapping[str, str]) -> Process:
    """Start `conveyor ARGS` with exactly `env`, in its own process group, as `Popen` would."""
    return _start(args, env, None)


def start_script(script: Path, args: Sequence[str], env: Mapping[str, str]) -> Process:
    """Start `python SCRIPT ARGS` with exactly `env` as a fork of the preloaded server (a
    test's stand-in for a `conveyor` command that imports what a job imports)."""
    return _start(args, env, script)


def _start(args: Sequence[str], env: Mapping[str, str], script: Path | None) -> Process:
    if not _exec_wanted():
        return _client().start(args, env, script=script)
    return subprocess.Popen(
        [*_program(script), *args],
        env=dict(env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def _exec_wanted() -> bool:
    """`CONVEYOR_TEST_EXEC=1`: run commands as fresh processes, not forks."""
    return os.environ.get(EXEC_ENV, "").strip() in {"1", "true"}


def _program(script: Path | None) -> list[str]:
    """The argv before the arguments: `conveyor`, or `python SCRIPT`."""
    return conveyor_argv() if script is None else [sys.executable, str(script)]


def _client() -> _Client:
    with _LOCK:
        client = _CLIENTS.get(os.getpid())
        if client is None:
            client = _CLIENTS[os.getpid()] = _Client()
    return client


def server_pid() -> int | None:
    """The pid of this process's fork server, once one has started."""
    client = _CLIENTS.get(os.getpid())
    return None if client is None else client.process.pid
