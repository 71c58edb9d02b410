"""Sessions started beside the one a stage launches, kept until the stage asks for them.

A stage says which sessions it will launch next and may run at the same time
(`LaunchSession.alongside`: a first review's later lenses). The job starts each on a thread
of its own as the first launches, and when the stage asks for one of them (the same kind,
role, reply model, prompts and budget role: the attempt may differ, after a retry), its launch
is answered with how it ended. One the stage never asks for (it ended first: a lens failed
twice, a rate limit) is aborted when the stage ends, and the job waits for it: its usage
is recorded in the job file and the ledger like any session's, and `close` answers how it
ended, for the stage's end to keep what it spent.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, wait
from dataclasses import dataclass, replace
from typing import Generic, TypeVar

from conveyor.agents.process import SessionHandle
from conveyor.sandbox.quiet_threads import worker
from conveyor.stages.effects import LaunchSession

T = TypeVar("T")


def key_of(effect: LaunchSession) -> LaunchSession:
    """What makes two launches the same session: all of it but its attempt."""
    return replace(effect, attempt=0, alongside=())


@dataclass(frozen=True)
class _Started(Generic[T]):
    """One session started ahead: its handle (to abort it) and how it ended."""

    handle: SessionHandle
    ended: Future[T]


def _run(
    started: _Started[T], run: Callable[[LaunchSession, SessionHandle], T], launched: LaunchSession
) -> None:
    try:
        started.ended.set_result(run(launched, started.handle))
    except BaseException as exc:  # noqa: BLE001 - raised again in the launch that asks
        started.ended.set_exception(exc)


class Alongside(Generic[T]):
    """The sessions started beside a launch, by the key of the launch that will ask for them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._started: dict[LaunchSession, _Started[T]] = {}

    def start(
        self,
        launches: tuple[tuple[LaunchSession, LaunchSession], ...],
        run: Callable[[LaunchSession, SessionHandle], T],
    ) -> None:
        """Start each `(asked, launched)`: `launched` runs now, its end kept for `asked`."""
        for asked, launched in launches:
            started: _Started[T] = _Started(SessionHandle(), Future())
            with self._lock:
                if self._started.setdefault(key_of(asked), started) is not started:
                    continue
            name = f"session-{launched.kind}"
            thread = worker(_run, args=(started, run, launched), name=name)
            thread.start()

    def take(self, asked: LaunchSession) -> T | None:
        """How the session started for `asked` ended (waiting for it); None when none was."""
        with self._lock:
            started = self._started.pop(key_of(asked), None)
        return None if started is None else started.ended.result()

    def close(self) -> list[tuple[LaunchSession, T]]:
        """Abort the sessions no launch asked for, wait for them to end, and answer how each
        ended (by the launch that would have asked; one that raised is left out)."""
        with self._lock:
            left = list(self._started.items())
            self._started.clear()
        for _, started in left:
            started.handle.abort()
        wait([started.ended for _, started in left])
        return [(key, s.ended.result()) for key, s in left if s.ended.exception() is None]
