"""Worker threads that leave the process's stop signals to its main thread."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable

STOP_SIGNALS = frozenset({signal.SIGTERM, signal.SIGINT, signal.SIGHUP})


def worker(
    target: Callable[..., object], *, name: str | None = None, args: tuple[object, ...] = ()
) -> threading.Thread:
    """A daemon thread (not started) running `target(*args)` with the stop signals blocked.

    Python runs a signal's handler in the main thread only, but the kernel may hand a
    process's signal to any of its threads that does not block it. One a worker takes waits
    until the main thread next runs Python: after a `waitpid`, or a wait whose timeout is a
    whole session. Blocked here, the kernel hands it to the main thread, whose wait it
    interrupts. Threads this one starts inherit the mask.
    """

    def run() -> None:
        signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        target(*args)

    return threading.Thread(target=run, name=name, daemon=True)
