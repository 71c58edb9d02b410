"""A run in another tree on its own thread, beside the checkout's: started when asked, stopped
when the caller leaves without it.

The spec check's reverted run and verify's fails-before-fix each set up and test a
temporary worktree of their own, so they need nothing of the checkout's runs but a
finished setup (the shared environment): the caller starts them once its setup passed.
Only runs in different trees go beside each other; the checkout's own commands stay in
order. The thread's commands get a heartbeat that raises once the run is stopped (or the
job's own heartbeat raises, as when it is interrupted), which ends the command's process
group as an interrupt does (`verify.commands`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from types import TracebackType
from typing import Generic, TypeVar

from conveyor.sandbox.quiet_threads import worker
from conveyor.verify.context import Context

T = TypeVar("T")


class Stopped(Exception):
    """Raised in the thread's commands once the caller no longer wants the run."""


class Beside(Generic[T]):
    """`work(ctx)` on a thread of its own once `start()` is called; `result()` waits for it."""

    def __init__(self, ctx: Context, work: Callable[[Context], T]) -> None:
        self._ctx = ctx
        self._work = work
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._value: list[T] = []
        self._error: BaseException | None = None

    def _beat(self) -> None:
        if self._stop.is_set():
            raise Stopped
        if self._ctx.heartbeat is not None:
            self._ctx.heartbeat()

    def _run(self) -> None:
        try:
            self._value.append(self._work(replace(self._ctx, heartbeat=self._beat)))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller by result()
            self._error = exc

    def start(self) -> None:
        """Start the run (once; later calls do nothing)."""
        if self._thread is None:
            self._thread = worker(self._run, name="verify-beside")
            self._thread.start()

    def result(self) -> T:
        """The run's result, waiting for it; it runs here and now when it was never started."""
        if self._thread is None:
            return self._work(self._ctx)
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value[0]

    def stop(self) -> None:
        """End a started run and wait for it; its result, or error, is dropped."""
        if self._thread is not None:
            self._stop.set()
            self._thread.join()

    def __enter__(self) -> Beside[T]:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._thread is not None and self._thread.is_alive():
            self.stop()  # left early (an error, an interrupt, a result not wanted)
