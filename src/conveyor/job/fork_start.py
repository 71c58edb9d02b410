"""Start `conveyor job …` as a fork of a process that has already imported it, or by exec.

A fresh job spends about a second on imports; `drive` and the orchestrator import once
(`preload`) and fork. The child runs the same entry point an exec'd job runs
(`job/entry.py`), with exactly the given environment, and leaves by `os._exit`: it never
returns into the parent's code nor runs its exit handlers. `CONVEYOR_JOB_START=exec` turns
forking off; a process running a second thread never forks (that thread's locks stay held in
the child).
"""

from __future__ import annotations

import atexit
import gc
import importlib
import os
import signal
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from typing import Literal

from conveyor.job.entry import ENTRY_MODULE, run_conveyor_main

START_ENV = "CONVEYOR_JOB_START"
JobStart = Literal["fork", "exec"]
# What a job imports (its runner pulls in stages, agents and ops); a forked job measured
# to import only ~40 ms more, githubkit's lazily loaded model groups.
PRELOAD = (
    ENTRY_MODULE,
    "conveyor.cli.app",
    "conveyor.cli.job_cmd",
    "conveyor.job.main",
    "conveyor.job.runner",
    "conveyor.forge.connect",
    "conveyor.forge.github.client",
    "httpcore",  # httpx imports it when the first client's transport is made
)
# Sessions' MCP servers run in the job (`McpEndpoint`): the SDK's ~1 s import, paid once.
# Imported after the first fork (`preload_sessions`), while that job runs on the other core.
SESSION_PRELOAD = (
    "conveyor.agents.mcp_endpoint",
    "mcp_types",
    "mcp.server.lowlevel",
    "mcp.server.stdio",
    "anyio._backends._asyncio",  # anyio's event loop backend, loaded when the server first runs
    "conveyor.core.replies",  # the reply schemas each session's `tools/list` answers
)
# What a preloaded module builds or loads once, for every fork to inherit (each cached per
# process): the CLI's click command; the forge clients' TLS context (the CA bundle, parsed)
# and githubkit's models that it would otherwise load at a job's first request; the reply
# models' JSON schemas (a job's first build took 23 ms, in its first session's tools/list).
BUILT_AT_PRELOAD: dict[str, tuple[str, ...]] = {
    ENTRY_MODULE: ("cli_command",),
    "conveyor.forge.github.client": ("tls_context", "load_kit_models"),
    "conveyor.core.replies": ("warm_reply_schemas",),
}
_POLL_MAX_S = 0.05


def job_start(environ: Mapping[str, str]) -> JobStart:
    """How jobs start: by fork unless `CONVEYOR_JOB_START=exec`."""
    return "exec" if environ.get(START_ENV, "").strip().lower() == "exec" else "fork"


def can_fork() -> bool:
    """Whether forking is safe here: a POSIX process running a single thread."""
    return hasattr(os, "fork") and threading.active_count() == 1


def preload(modules: Sequence[str] = PRELOAD) -> None:
    """Import what a job imports, so each forked job starts with it already loaded."""
    for name in modules:
        module = importlib.import_module(name)
        for build in BUILT_AT_PRELOAD.get(name, ()):
            getattr(module, build)()


def preload_sessions() -> None:
    """Import the sessions' MCP server modules (call it after a fork, so the two overlap)."""
    preload(SESSION_PRELOAD)


def fork_job(
    args: Sequence[str],
    env: Mapping[str, str],
    *,
    new_session: bool,
    stdout_fd: int | None = None,
) -> int:
    """Fork a child that runs `conveyor ARGS` with exactly `env`; the child's pid."""
    return fork_call(
        lambda: run_conveyor_main(args), env, new_session=new_session, stdout_fd=stdout_fd
    )


def fork_call(
    fn: Callable[[], int],
    env: Mapping[str, str],
    *,
    new_session: bool,
    stdout_fd: int | None = None,
    stderr_fd: int | None = None,
) -> int:
    """Fork a child that runs `fn` and exits with its code; the child's pid, in the parent.

    With `stdout_fd`, the child's stdout goes there, its stderr too (or to `stderr_fd`),
    and its stdin is /dev/null; without, it shares the parent's, as an exec'd child would.
    """
    for stream in (sys.stdout, sys.stderr):
        stream.flush()  # or the child would write the parent's pending output again
    pid = os.fork()
    if pid != 0:
        return pid
    code = 1
    try:
        _become_child(env, new_session=new_session, stdio=_stdio(stdout_fd, stderr_fd))
        code = fn()
    except SystemExit as exc:
        code = _exit_code(exc.code)
    except KeyboardInterrupt:
        traceback.print_exc()
        code = -signal.SIGINT
    except BaseException:  # noqa: BLE001 - the child reports every failure and exits
        traceback.print_exc()
        code = 1
    finally:
        _leave(code)
    return pid  # pragma: no cover - `_leave` never returns


def _stdio(stdout_fd: int | None, stderr_fd: int | None) -> tuple[int, int] | None:
    """The child's stdout and stderr, or None to keep the parent's."""
    if stdout_fd is None:
        return None
    return stdout_fd, stdout_fd if stderr_fd is None else stderr_fd


def _become_child(
    env: Mapping[str, str], *, new_session: bool, stdio: tuple[int, int] | None
) -> None:
    """Look like a freshly started process: own session, log, signals and environment."""
    gc.freeze()  # the parent's garbage is not ours to finalise (its files, its sockets)
    atexit._clear()  # the parent's exit handlers are not ours to run
    if new_session:
        os.setsid()
    if stdio is not None:
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(stdio[0], 1)
        os.dup2(stdio[1], 2)
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for sig in (signal.SIGTERM, signal.SIGCHLD, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)
    wanted = dict(env)  # a copy first: `env` may be `os.environ` itself
    os.environ.clear()  # nothing of the parent's may leak: the job builds sessions' env from it
    os.environ.update(wanted)


def _exit_code(code: object) -> int:
    """The status `sys.exit(code)` gives a process: None is 0, text is printed and 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)  # noqa: T201 - what the interpreter prints for sys.exit(text)
    return 1


def _leave(code: int) -> None:
    """End the child as the interpreter would, minus the parent's state: never returns."""
    try:
        shutdown = getattr(threading, "_shutdown", None)
        if shutdown is not None:
            shutdown()  # joins the child's non-daemon threads, as interpreter exit does
        atexit._run_exitfuncs()  # only the child's own handlers are left
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        if code == -signal.SIGINT:  # an uncaught Ctrl-C ends a process by SIGINT
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
    finally:
        os._exit(code & 0xFF)


class ForkedChild:
    """A forked child, polled and waited for like a `subprocess.Popen`."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        """Its exit code once it has ended (reaping it), else None."""
        return self._reap(os.WNOHANG)

    def wait(self, timeout: float | None = None) -> int:
        """Wait for it to end; its exit code (raises `subprocess.TimeoutExpired`)."""
        if timeout is None:
            code = self._reap(0)
            assert code is not None
            return code
        deadline = time.monotonic() + timeout
        delay = 0.0005
        while (code := self.poll()) is None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise subprocess.TimeoutExpired(["conveyor", f"pid {self.pid}"], timeout)
            delay = min(delay * 2, left, _POLL_MAX_S)
            time.sleep(delay)
        return code

    def kill(self) -> None:
        """SIGKILL it, unless it has been reaped (its pid may be another process's by now)."""
        if self.returncode is None:
            os.kill(self.pid, signal.SIGKILL)

    def _reap(self, flags: int) -> int | None:
        if self.returncode is not None:
            return self.returncode
        try:
            pid, status = os.waitpid(self.pid, flags)
        except ChildProcessError:  # reaped elsewhere (SIGCHLD ignored): as subprocess does
            self.returncode = 0
            return 0
        if pid == 0:
            return None
        self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode
