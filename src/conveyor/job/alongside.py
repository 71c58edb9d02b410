"""Sessions started beside the one a stage launches, kept until the stage asks for them.

A stage says which sessions it will launch next and may run at the same time
(`LaunchSession.alongside`: a first review's later lenses). The job starts each on a thread
of its own as the first launches, and when the stage asks for one of them (the same kind,
role, reply model, prompts and budget role: the attempt may differ, after a retry), its launch
is answered with how it ended. One the stage never asks for (it ended first: a lens failed
twice, a rate limit) is aborted when the stage ends, and the job waits for it: its usage
is recorded in the job file and the ledger like any session's.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from conveyor.agents.process import SessionHandle
from conveyor.stages.effects import LaunchSession

Key = tuple[str, str, str, str, str, str]


def key_of(effect: LaunchSession) -> Key:
    """What makes two launches the same session, whatever their attempt."""
    return (
        effect.kind,
        effect.role.value,
        effect.budget_role.value,
        effect.reply_model,
        effect.system_prompt,
        effect.task,
    )


T = TypeVar("T")


@dataclass
class _Started(Generic[T]):
    """One session started ahead: its handle (to abort it), its thread and how it ended."""

    handle: SessionHandle
    outcome: list[T] = field(default_factory=list)
    failure: list[BaseException] = field(default_factory=list)
    thread: threading.Thread | None = None

    def run(
        self, run: Callable[[LaunchSession, SessionHandle], T], launched: LaunchSession
    ) -> None:
        try:
            self.outcome.append(run(launched, self.handle))
        except BaseException as exc:  # noqa: BLE001 - raised again in the launch that asks
            self.failure.append(exc)

    def wait(self) -> T:
        if self.thread is not None:
            self.thread.join()
        if self.failure:
            raise self.failure[0]
        return self.outcome[0]


class Alongside(Generic[T]):
    """The sessions started beside a launch, by the key of the launch that will ask for them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._started: dict[Key, _Started[T]] = {}

    def start(
        self,
        launches: tuple[tuple[LaunchSession, LaunchSession], ...],
        run: Callable[[LaunchSession, SessionHandle], T],
    ) -> None:
        """Start each `(asked, launched)`: `launched` runs now, its end kept for `asked`."""
        for asked, launched in launches:
            started: _Started[T] = _Started(SessionHandle())
            with self._lock:
                if key_of(asked) in self._started:
                    continue
                self._started[key_of(asked)] = started
            started.thread = threading.Thread(
                target=started.run, args=(run, launched), name=f"session-{launched.kind}",
                daemon=True,
            )  # fmt: skip
            started.thread.start()

    def take(self, asked: LaunchSession) -> T | None:
        """How the session started for `asked` ended (waiting for it); None when none was."""
        with self._lock:
            started = self._started.pop(key_of(asked), None)
        return None if started is None else started.wait()

    def close(self) -> None:
        """Abort the sessions no launch asked for, and wait for them to end."""
        with self._lock:
            left = list(self._started.values())
            self._started.clear()
        for started in left:
            started.handle.abort()
        for started in left:
            if started.thread is not None:
                started.thread.join()
