"""Following one CLI process: its stream to the transcript, and the context, loop and time rules.

A CLI that takes messages while it runs (claude) is steered on its stdin. One
that cannot (codex, opencode) is steered by its resume mechanism: `run`
returns the steer text, the process is ended at once (or, when it had just
finished its turn, left to exit), and the runner starts the CLI again on the
same session with the steer as the next message.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import IO, Final, assert_never

from conveyor.agents.backends.base import Backend, StreamParser, StreamState
from conveyor.agents.process import AgentProcess, Event
from conveyor.agents.result_file import Watch
from conveyor.core.session import (
    HANDOFF_STEER,
    LOOP_CALLS,
    SessionSpec,
    WatchAction,
    watch,
)

# A CLI that said nothing for this share of its time when the timeout came had hung.
SILENT_SHARE = 1 / 3
Progress = Callable[[SessionSpec, StreamState], None]
"""Told of a launch's stream state once the CLI has started and after each line of its stream
(the job keeps job.json current with it; it must be quick and must not raise)."""


class _ReadOn(Enum):
    """An event that leaves the process running: read the next one."""

    READ_ON = "read on"


_READ_ON: Final = _ReadOn.READ_ON


@dataclass
class Following:
    """One process of a session, read until it ends; `run` returns a steer to resume with."""

    spec: SessionSpec
    backend: Backend
    proc: AgentProcess
    parser: StreamParser
    out: IO[str]
    seen: Watch
    deadline: float
    progress: Progress | None = None

    def tell(self) -> None:
        """Tell the progress callback the stream's state."""
        if self.progress is not None:
            self.progress(self.spec, self.parser.state)

    def steer(self, text: str) -> str | None:
        """Steer live where the CLI reads stdin; else end this process to resume with `text`."""
        if self.backend.steerable:
            self.proc.write(self.backend.steer_line(text))
            return None
        if not self.backend.resumable:
            return None
        if not self.parser.state.ended:
            self.proc.kill_group()
        return text

    def run(self) -> str | None:
        """Read events until the process ends, steering or stopping it on context and time."""
        self.tell()
        last_line = time.monotonic()
        for event in self.proc.events(self.deadline):
            if event is None:
                self._time_out(last_line)
                return None
            if event.kind == "line":
                last_line = time.monotonic()
            after = self._react(event)
            if after is not _READ_ON:
                return after
        return None

    def _react(self, event: Event) -> str | _ReadOn | None:
        """One event: read on, end with nothing, or end with a steer to resume with."""
        match event.kind:
            case "line":
                return self._line(event.text)
            case "steer":
                resume = self.steer(event.text)
                return _READ_ON if resume is None else resume
            case "abort":
                self.seen.aborted = True
                self.proc.kill_group()
                return None
            case "eof":
                return None
            case _:
                assert_never(event.kind)

    def _time_out(self, last_line: float) -> None:
        """The deadline passed: note whether the CLI had gone silent, and end it."""
        self.seen.timed_out = True
        budget = self.spec.timeout_seconds * SILENT_SHARE
        self.seen.went_silent = time.monotonic() - last_line >= budget
        self.proc.kill_group()

    def _line(self, text: str) -> str | _ReadOn | None:
        """One stream line: to the transcript and the parser, then the loop and context rules."""
        state, seen = self.parser.state, self.seen
        self.out.write(text if text.endswith("\n") else text + "\n")
        self.out.flush()  # the transcript is readable live
        context = self.parser.feed(text)
        self.tell()
        if state.same_calls >= LOOP_CALLS:
            seen.looped = f"the same call {state.same_calls} times in a row: {state.last_call}"
            self.proc.kill_group()
            return None
        if state.ended and self.backend.steerable:
            self.proc.close_stdin()
        if context is None:
            return _READ_ON
        if (resume := self._watch_context(context)) is not None:
            return resume
        return None if seen.context_stopped else _READ_ON

    def _watch_context(self, context: int) -> str | None:
        """CTX-3/CTX-4 on one turn's context: one steer past soft, a stop past hard."""
        steerable = self.backend.steerable or self.backend.resumable
        action = watch(
            context, self.spec.context, self.spec.role, steered=self.seen.steered,
            steerable=steerable,
        )  # fmt: skip
        if action is WatchAction.STEER:
            self.seen.steered = True
            return self.steer(HANDOFF_STEER)
        if action is WatchAction.STOP:
            self.seen.context_stopped = True
            self.proc.kill_group()
        return None
