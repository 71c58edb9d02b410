"""A running session in job.json: recorded when it starts, kept current as its events arrive.

The runner tells `LiveSession` the launch's stream state after every line;
job.json is rewritten at most once per `interval` (a change held back is
written when the interval is up, by a timer), and at once on a tool failure,
so the watchdog reads a session's live context and its tool-failure streak
(WD-8, WD-10) while the session runs. The end record replaces this one.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from conveyor.agents.backends.base import StreamState
from conveyor.core.session import SessionSpec, Usage
from conveyor.job.jobfile import RUNNING, JobFile, SessionRecord, ToolFailureRecord, UsageRecord

THROTTLE_SECONDS = 1.0


@dataclass
class ToolStreak:
    """Counts failures of one tool in a row from the stream's running counts.

    The parsers count calls and failures but not successes: a failure continues
    the streak when it is the same tool and every call made since the last
    failure failed.
    """

    failures: int = 0
    calls_at_failure: int = 0
    current: ToolFailureRecord | None = None

    def observe(self, calls: int, failures: int, last: str | None) -> bool:
        """Take the counts after one event; True when a new failure was seen."""
        if failures <= self.failures or last is None:
            return False
        new = failures - self.failures
        tool, _, error = last.partition(": ")
        kept = self.current
        in_row = kept is not None and kept.tool == tool and calls - self.calls_at_failure <= new
        streak = kept.streak + new if in_row and kept is not None else 1
        self.current = ToolFailureRecord(tool=tool, error=error, streak=streak)
        self.failures, self.calls_at_failure = failures, calls
        return True


def _usage(usage: Usage) -> UsageRecord:
    return UsageRecord(
        input=usage.input,
        output=usage.output,
        cache_read=usage.cache_read,
        cache_write=usage.cache_write,
    )


class LiveSession:
    """The runner's progress callback for one session (all its launches) of one job."""

    def __init__(
        self,
        job_file: JobFile,
        key: str,
        budget: int,
        *,
        interval: float = THROTTLE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._job_file = job_file
        self._key = key
        self.budget = budget
        self._interval = interval
        self._clock = clock
        self._lock = threading.Lock()
        self._state: StreamState | None = None
        self._model = ""
        self._backend = ""
        self._earlier = Usage()
        self._earlier_peak = 0
        self._streak = ToolStreak()
        self._written_at: float | None = None
        self._written: SessionRecord | None = None
        self._pending: SessionRecord | None = None
        self._timer: threading.Timer | None = None
        self._closed = False

    @property
    def tool_failure(self) -> ToolFailureRecord | None:
        """The current launch's failing tool and its streak, if any tool failed."""
        return self._streak.current

    def __call__(self, spec: SessionSpec, state: StreamState) -> None:
        """Take the launch's state after an event; write now, or once the interval is up."""
        with self._lock:
            if self._closed:
                return
            first = self._state is not state
            if first:
                self._next_launch(spec, state)
            failed = self._streak.observe(
                state.tool_calls, state.tool_failures, state.last_tool_failure
            )
            record = self._record(state)
            now = self._clock()
            due = self._written_at is None or now - self._written_at >= self._interval
            if first or failed or (due and record != self._written):
                self._write(record, now)
            elif record != self._written:
                self._pending = record
                self._arm(self._interval - (now - (self._written_at or now)))

    def flush(self) -> None:
        """Write a change held back by the throttle (the timer calls this)."""
        with self._lock:
            if not self._closed and self._pending is not None:
                self._write(self._pending, self._clock())

    def close(self, status: str | None = None) -> None:
        """Stop writing: the session's end record comes next and must not be overwritten.

        With `status` (a launch that raised, so no end record follows) the running
        record is marked with it rather than left `running`.
        """
        with self._lock:
            self._closed = True
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            last = self._pending or self._written
            if status is not None and last is not None:
                self._write(last.model_copy(update={"status": status}), self._clock())

    def _next_launch(self, spec: SessionSpec, state: StreamState) -> None:
        """A retry is a new CLI process: carry the earlier launch's usage, restart the streak."""
        if self._state is not None:
            self._earlier = self._earlier + self._state.usage
            self._earlier_peak = max([self._earlier_peak, *self._state.contexts])
        self._state = state
        self._model, self._backend = spec.model, spec.backend
        self._streak = ToolStreak()

    def _record(self, state: StreamState) -> SessionRecord:
        contexts = state.contexts
        return SessionRecord(
            key=self._key,
            backend=self._backend,
            model=self._model,
            status=RUNNING,
            usage=_usage(self._earlier + state.usage),
            cost_usd=None,
            peak_context=max([self._earlier_peak, *contexts]),
            last_context=contexts[-1] if contexts else 0,
            budget=self.budget,
            last_tool_failure=state.last_tool_failure,
            tool_failure=self._streak.current,
        )

    def _write(self, record: SessionRecord, now: float) -> None:
        try:
            self._job_file.record_session(record)
        except OSError:
            return  # a live figure not written must not end the session; the next try may
        self._written_at, self._written, self._pending = now, record, None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _arm(self, delay: float) -> None:
        if self._timer is None:
            self._timer = threading.Timer(max(delay, 0.0), self.flush)
            self._timer.daemon = True
            self._timer.start()
