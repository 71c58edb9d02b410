"""A CLI process in its own process group: its stdout as events, steering, killing the group."""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Literal

from conveyor.sandbox.quiet_threads import worker

EventKind = Literal["line", "steer", "eof", "abort"]
GRACE_SECONDS = 2.0


@dataclass(frozen=True)
class Event:
    """One thing the runner reacts to: a stdout line, a steer request, the end, an abort."""

    kind: EventKind
    text: str = ""


class SessionHandle:
    """Lets another thread steer or abort a running session (the job's control socket)."""

    def __init__(self) -> None:
        self._events: queue.Queue[Event] = queue.Queue()

    def steer(self, text: str) -> None:
        """Ask the runner to send `text` to the session, if its CLI can be steered."""
        self._events.put(Event("steer", text))

    def abort(self) -> None:
        """Ask the runner to stop the session (SIGTERM, then SIGKILL to its group)."""
        self._events.put(Event("abort"))

    def events(self) -> queue.Queue[Event]:
        """The queue the runner reads."""
        return self._events


class AgentProcess:
    """One spawned CLI; stdout lines are pushed onto the handle's queue by a reader thread."""

    def __init__(
        self,
        argv: list[str],
        *,
        cwd: Path,
        env: dict[str, str],
        stderr: IO[bytes],
        handle: SessionHandle,
    ) -> None:
        self._events = handle.events()
        self.proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            start_new_session=True,
        )
        self._lock = threading.Lock()
        self._reader = worker(self._read)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self._events.put(Event("line", raw.decode("utf-8", "replace")))
        self._events.put(Event("eof"))

    def write(self, text: str) -> bool:
        """Write to stdin (after the task); False when it is closed or the process is gone."""
        with self._lock:
            return self._write(text)

    def _write(self, text: str) -> bool:
        if self.proc.stdin is None or self.proc.stdin.closed:
            return False
        try:
            self.proc.stdin.write(text.encode())
            self.proc.stdin.flush()
        except OSError:
            return False
        return True

    def send_task(self, text: str | None, *, keep_open: bool) -> None:
        """Write the task on a thread, so a CLI that never reads cannot outlast the timeout.

        The lock is taken here and released by that thread: steers queue behind the task.
        """
        self._lock.acquire()

        def send() -> None:
            try:
                if text is not None:
                    self._write(text)
                if not keep_open:
                    self._close()
            finally:
                self._lock.release()

        worker(send).start()

    def close_stdin(self) -> None:
        """Close stdin, telling a stream-json CLI no more messages will come."""
        with self._lock:
            self._close()

    def _close(self) -> None:
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()

    def events(self, deadline: float) -> Iterator[Event | None]:
        """Events until EOF; None once when the deadline passes."""
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                yield None
                return
            try:
                event = self._events.get(timeout=remaining)
            except queue.Empty:
                continue
            yield event
            if event.kind == "eof":
                return

    def kill_group(self) -> None:
        """SIGTERM the whole group, then SIGKILL whatever is left after a grace period."""
        self._signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=GRACE_SECONDS)
        self._signal(signal.SIGKILL)

    def _signal(self, sig: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, sig)

    def finish(self) -> int:
        """Wait for the CLI, then kill the group so no child (an MCP server) outlives it."""
        self.close_stdin()
        try:
            code = self.proc.wait(timeout=GRACE_SECONDS * 5)
        except subprocess.TimeoutExpired:
            self.kill_group()
            code = self.proc.wait()
        self._signal(signal.SIGKILL)
        self._reader.join(timeout=GRACE_SECONDS)
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self._drain()
        return code

    def _drain(self) -> None:
        """Drop this process's leftover lines; keep steers and aborts for a next launch."""
        kept: list[Event] = []
        while True:
            try:
                event = self._events.get_nowait()
            except queue.Empty:
                break
            if event.kind in ("steer", "abort"):
                kept.append(event)
        for event in kept:
            self._events.put(event)
