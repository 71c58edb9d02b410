"""A pipe SIGCHLD writes to while the loop naps, so a job's end wakes `run` and `tick` at once."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


def _ignore(signum: int, frame: FrameType | None) -> None:
    """SIGCHLD's handler while a nap listens: the wakeup fd is the point, not the call."""
    del signum, frame


class ChildExits:
    """A pipe SIGCHLD writes a byte to (`signal.set_wakeup_fd`): readable once a child of
    this process has exited since the last `drain`."""

    def __init__(self, read: int) -> None:
        self.fd = read

    def drain(self) -> None:
        """Empty the pipe (before looking at the jobs: an exit after that is heard)."""
        with contextlib.suppress(BlockingIOError):
            while os.read(self.fd, 512):
                pass


@contextmanager
def child_exits() -> Iterator[ChildExits | None]:
    """While the block runs, a signal (SIGCHLD: a child of ours exited) makes `fd` readable.

    Only a nap listens, so the rest of the loop (its forge calls, git, SQLite) never sees
    SIGCHLD interrupt a call. None off the main thread, or where a wakeup fd is already
    set (an event loop's): there the caller polls.
    """
    if threading.current_thread() is not threading.main_thread():
        yield None
        return
    read, write = os.pipe()
    os.set_blocking(read, False)
    os.set_blocking(write, False)
    try:
        before = signal.set_wakeup_fd(write, warn_on_full_buffer=False)
        if before != -1:
            signal.set_wakeup_fd(before)
            yield None
            return
        handler = signal.signal(signal.SIGCHLD, _ignore)
        try:
            yield ChildExits(read)
        finally:
            signal.signal(signal.SIGCHLD, signal.SIG_DFL if handler is None else handler)
            signal.set_wakeup_fd(-1)
    finally:
        os.close(read)
        os.close(write)
