"""Running one configured command: own process group, given environment, timeout, full log."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path

from conveyor.core.timeline import RUN_SUFFIX, command_record
from conveyor.core.verify import CommandResult, Outcome

TAIL_BYTES = 4096
# After SIGTERM to the group on a timeout, how long the command gets to exit cleanly.
_GRACE_S = 2.0


def read_tail(log_path: Path, limit: int = TAIL_BYTES) -> str:
    """The last `limit` bytes of a log as text (a split character is replaced)."""
    with log_path.open("rb") as log:
        log.seek(0, os.SEEK_END)
        size = log.tell()
        log.seek(max(0, size - limit))
        return log.read().decode("utf-8", errors="replace")


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):  # the whole group has already exited
        os.killpg(pgid, sig)


def _stop_group(process: subprocess.Popen[bytes]) -> None:
    """End every process of the command's group: SIGTERM, a short grace, then SIGKILL."""
    _signal_group(process.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=_GRACE_S)
    # Children may outlive the shell (or ignore SIGTERM): kill whatever is left.
    _signal_group(process.pid, signal.SIGKILL)
    process.wait()


def _wait(
    process: subprocess.Popen[bytes],
    deadline: float,
    heartbeat: Callable[[], None] | None,
    every_s: float,
) -> int | None:
    """The exit code, or None when `deadline` (a monotonic time) passed first.

    Waits on the process's pidfd, so an exit is seen at once: `Popen.wait(timeout)` polls
    with growing sleeps and would add up to half a command's run to a short one.
    """
    try:
        pidfd = os.pidfd_open(process.pid)
    except OSError:  # a kernel without pidfds: Popen's own polling
        return _poll(process, deadline, heartbeat, every_s)
    try:
        exited = select.poll()
        exited.register(pidfd, select.POLLIN)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            wait_s = min(left, every_s) if heartbeat else left
            if exited.poll(max(1, int(wait_s * 1000))):
                return process.wait()
            if heartbeat is not None:
                heartbeat()
    finally:
        os.close(pidfd)


def _poll(
    process: subprocess.Popen[bytes],
    deadline: float,
    heartbeat: Callable[[], None] | None,
    every_s: float,
) -> int | None:
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        try:
            return process.wait(timeout=min(left, every_s) if heartbeat else left)
        except subprocess.TimeoutExpired:
            if heartbeat is not None:
                heartbeat()


def save_run_record(log_path: Path, result: CommandResult, started: datetime) -> None:
    """Leave `<log name>.run.json` next to the log: when the run began and ended, and how
    (the issue's timeline reads it). Best effort: a failed write loses only the bar."""
    ended = datetime.now(UTC)
    record = command_record(result.name, started, ended, result.outcome.value)
    with contextlib.suppress(OSError):
        log_path.with_name(log_path.stem + RUN_SUFFIX).write_text(json.dumps(record))


def run_command(
    name: str,
    command: str,
    cwd: Path,
    *,
    env: Mapping[str, str],
    timeout_s: float,
    log_path: Path,
    heartbeat: Callable[[], None] | None = None,
    heartbeat_every_s: float = 5.0,
    wrap: Callable[[list[str]], list[str]] | None = None,
) -> CommandResult:
    """Run the shell command `command` in `cwd` with exactly `env`, logging to `log_path`.

    The command runs in its own session (so its own process group); on timeout the
    whole group is terminated. stdout and stderr both go to the log, kept in full;
    the result carries its last ~4 kB. `heartbeat`, when given, is called about
    every `heartbeat_every_s` while the command runs (the job's job.json heartbeat).
    `wrap` turns the shell's argv into the one started (the job's box, `verify.boxing`);
    ending the box's process ends everything inside it. The run's record is left next to
    the log (`save_run_record`).
    """
    began = datetime.now(UTC)
    result = _run_command(
        name, command, cwd, env, timeout_s, log_path, heartbeat, heartbeat_every_s, wrap
    )
    save_run_record(log_path, result, began)
    return result


def _run_command(  # noqa: PLR0917 - run_command's own arguments, passed on in order
    name: str,
    command: str,
    cwd: Path,
    env: Mapping[str, str],
    timeout_s: float,
    log_path: Path,
    heartbeat: Callable[[], None] | None,
    heartbeat_every_s: float,
    wrap: Callable[[list[str]], list[str]] | None,
) -> CommandResult:
    log_path.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    timed_out = False
    with log_path.open("wb") as log:
        log.write(f"$ {command}\n".encode())
        log.flush()
        try:
            argv = ["/bin/sh", "-c", command]
            process = subprocess.Popen(
                wrap(argv) if wrap is not None else argv,
                cwd=cwd,
                env=dict(env),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError as exc:  # cwd missing, or /bin/sh unusable
            log.write(f"could not start: {exc}\n".encode())
            return CommandResult(
                name=name,
                outcome=Outcome.FAILED,
                duration_s=time.monotonic() - started,
                log_path=str(log_path),
                tail=f"could not start: {exc}",
                reason=f"could not start `{command}` in {cwd}: {exc}",
                command=command,
            )
        try:
            code = _wait(process, started + timeout_s, heartbeat, heartbeat_every_s)
        except BaseException:  # interrupted (SIGINT, a failing heartbeat): leave nothing behind
            _stop_group(process)
            raise
        if code is None:
            timed_out = True
            _stop_group(process)
        duration = time.monotonic() - started
        if timed_out:
            log.write(
                f"\n[conveyor] timed out after {timeout_s:g} s; process group killed\n".encode()
            )
    tail = read_tail(log_path)
    if timed_out:
        outcome, reason = Outcome.TIMED_OUT, f"no result within {timeout_s:g} s"
    elif code == 0:
        outcome, reason = Outcome.PASSED, ""
    else:
        outcome, reason = Outcome.FAILED, ""
    return CommandResult(
        name=name,
        outcome=outcome,
        exit_code=code,
        duration_s=duration,
        log_path=str(log_path),
        tail=tail,
        reason=reason,
        command=command,
    )
