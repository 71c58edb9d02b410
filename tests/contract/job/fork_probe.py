"""Forks children through `conveyor.job.fork_start` from a fresh single-threaded process.

Run as a script by the fork tests (a pytest process may run the forge's threads, and a
threaded process must not fork): `python fork_probe.py CASE DIR [ARGS…]`. It prints one
JSON object: the child's exit code and what the case observed. Children log to DIR/log.
"""

from __future__ import annotations

import atexit
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conveyor.job.fork_start import ForkedChild, can_fork, fork_call, fork_job, preload


def _run(
    out: Path, fn: Callable[[], int], env: dict[str, str], *, new_session: bool = False
) -> int:
    """Fork `fn` with its output in `out/log`, wait for it; its exit code."""
    with (out / "log").open("ab") as log:
        pid = fork_call(fn, env, new_session=new_session, stdout_fd=log.fileno())
    return ForkedChild(pid).wait()


def _job(out: Path, args: list[str]) -> dict[str, Any]:
    preload()
    with (out / "log").open("ab") as log:
        pid = fork_job(args, dict(os.environ), new_session=False, stdout_fd=log.fileno())
    return {"code": ForkedChild(pid).wait()}


def _env(out: Path) -> dict[str, Any]:
    os.environ["PARENT_ONLY_TOKEN"] = "parent-secret"

    def dump() -> int:
        (out / "env.json").write_text(json.dumps(dict(os.environ)))
        return 0

    code = _run(out, dump, {"ONLY": "yes", "PATH": "/usr/bin"})
    env = json.loads((out / "env.json").read_text())
    return {"code": code, "env": env, "parent_still_has": os.environ["PARENT_ONLY_TOKEN"]}


def _session(out: Path, new_session: bool) -> dict[str, Any]:
    def report() -> int:
        (out / "sid").write_text(str(os.getsid(0)))
        return 0

    code = _run(out, report, {}, new_session=new_session)
    return {"code": code, "child_sid": int((out / "sid").read_text()), "parent_sid": os.getsid(0)}


def _raise() -> int:
    message = "probe failure 17"
    raise RuntimeError(message)


def _exit_text() -> int:
    sys.exit("exit text 42")


def _sigterm() -> int:
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(30)
    return 0


def _atexit(out: Path) -> dict[str, Any]:
    atexit.register(lambda: (out / "parent-atexit").write_text("ran"))

    def child() -> int:
        atexit.register(lambda: (out / "child-atexit").write_text("ran"))
        return 0

    code = _run(out, child, {})
    return {
        "code": code,
        "parent_handler_ran": (out / "parent-atexit").exists(),
        "child_handler_ran": (out / "child-atexit").exists(),
    }


def _timeout(out: Path) -> dict[str, Any]:
    release = out / "release"

    def wait_for_release() -> int:
        while not release.exists():
            time.sleep(0.01)
        return 4

    with (out / "log").open("ab") as log:
        child = ForkedChild(
            fork_call(wait_for_release, {}, new_session=False, stdout_fd=log.fileno())
        )
    try:
        child.wait(0.05)
        timed_out = False
    except subprocess.TimeoutExpired:
        timed_out = True
    polled = child.poll()
    release.touch()
    return {"timed_out": timed_out, "polled": polled, "code": child.wait()}


def _threads() -> dict[str, Any]:
    alone = can_fork()
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    with_thread = can_fork()
    stop.set()
    thread.join()
    return {"alone": alone, "with_thread": with_thread, "code": 0}


def main() -> None:
    """Run the case named on the command line and print what it saw."""
    case, out, more = sys.argv[1], Path(sys.argv[2]), sys.argv[3:]
    result: dict[str, Any]
    match case:
        case "job":
            result = _job(out, more)
        case "env":
            result = _env(out)
        case "session" | "same-session":
            result = _session(out, new_session=case == "session")
        case "raise":
            result = {"code": _run(out, _raise, {})}
        case "exit-text":
            result = {"code": _run(out, _exit_text, {})}
        case "sigterm":
            signal.signal(signal.SIGTERM, lambda _sig, _frame: None)  # as the orchestrator does
            result = {"code": _run(out, _sigterm, {})}
        case "atexit":
            result = _atexit(out)
        case "timeout":
            result = _timeout(out)
        case "threads":
            result = _threads()
        case _:
            raise SystemExit(f"unknown case {case!r}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
