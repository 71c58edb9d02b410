"""The live view's progress line: how many issues are done, in flight and waiting, of all (pure)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Progress:
    """Counts of issues; every issue known is in exactly one of the four."""

    done: int
    in_flight: int
    waiting: int
    stopped: int

    @property
    def total(self) -> int:
        """Every issue known: named by an event or by status.json."""
        return self.done + self.in_flight + self.waiting + self.stopped


def count_progress(
    *,
    named: Iterable[int],
    finished: Iterable[int],
    running: Iterable[int],
    stopped: Iterable[int],
    queued: Iterable[int],
) -> Progress:
    """Sort every issue into one count: a running job first, then a stop, then the queue (or
    a hold, or a wait), then finished (merged or split); one named by events only is between
    two jobs, so waiting."""
    flying = set(running)
    halted = set(stopped) - flying
    waiting = set(queued) - flying - halted
    done = set(finished) - flying - halted - waiting
    between = set(named) - flying - halted - waiting - done
    return Progress(len(done), len(flying), len(waiting | between), len(halted))


def progress_line(progress: Progress) -> str:
    """`progress: 7 done · 2 in flight · 3 waiting of 12` (and the stopped, when any)."""
    parts = [f"{progress.done} done", f"{progress.in_flight} in flight"]
    parts.append(f"{progress.waiting} waiting")
    if progress.stopped:
        parts.append(f"{progress.stopped} stopped")
    return f"progress: {' · '.join(parts)} of {progress.total}"
