"""SIGTERM/SIGINT for the stage job, and the heartbeat thread."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

from conveyor.job.hub import JobHub
from conveyor.sandbox.quiet_threads import worker

HEARTBEAT_SECONDS = 5.0


class JobInterrupted(BaseException):
    """Raised in the main thread by a signal when no session can end the stage by itself."""


class SignalGuard:
    """Turns SIGTERM/SIGINT into an interrupt of the hub's sessions.

    While a session runs, aborting it is enough: the runner sees its result and
    `ctx.interrupted()`. Otherwise (or on a second signal) the main thread gets
    `JobInterrupted`. Once `disarm()` ran (the exit path), signals only mark.
    """

    def __init__(self, hub: JobHub) -> None:
        self.hub = hub
        self.armed = True
        self.received: list[int] = []

    def handle(self, signum: int, _frame: FrameType | None) -> None:
        """The signal handler."""
        repeated = self.hub.interrupted.is_set()
        self.received.append(signum)
        self.hub.interrupt()
        if self.armed and (repeated or not self.hub.running()):
            self.armed = False
            raise JobInterrupted

    def disarm(self) -> None:
        """From now on a signal raises nothing (the job is saving and cleaning up)."""
        self.armed = False


@contextmanager
def handling_signals(guard: SignalGuard) -> Iterator[SignalGuard]:
    """Install the guard for SIGTERM and SIGINT; restore the old handlers afterwards."""
    old = {sig: signal.signal(sig, guard.handle) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield guard
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)


@contextmanager
def heartbeat(beat: Callable[[], None], every: float = HEARTBEAT_SECONDS) -> Iterator[None]:
    """Call `beat` every `every` seconds on a daemon thread while the block runs."""
    stop = threading.Event()

    def loop() -> None:
        while not stop.wait(every):
            beat()

    thread = worker(loop, name="job-heartbeat")
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=every + 1)
