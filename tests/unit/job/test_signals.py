"""The job's interrupt rule and its heartbeat thread."""

from __future__ import annotations

import signal
import threading

import pytest

from conveyor.agents.process import SessionHandle
from conveyor.job.hub import JobHub
from conveyor.job.signals import JobInterrupted, SignalGuard, heartbeat


def test_a_signal_with_no_session_running_interrupts_the_main_thread() -> None:
    """Nothing can end the stage by itself: the job unwinds at once."""
    guard = SignalGuard(JobHub())
    with pytest.raises(JobInterrupted):
        guard.handle(signal.SIGTERM, None)
    assert guard.hub.interrupted.is_set()


def test_a_signal_during_a_session_aborts_it_and_a_second_one_unwinds() -> None:
    """The first signal aborts the running session; the runner then ends the stage."""
    guard = SignalGuard(JobHub())
    handle = SessionHandle()
    with guard.hub.track("implement-1", handle):
        guard.handle(signal.SIGINT, None)
        assert handle.events().get_nowait().kind == "abort"
        with pytest.raises(JobInterrupted):
            guard.handle(signal.SIGINT, None)


def test_a_disarmed_guard_only_marks_the_interrupt() -> None:
    """While the job saves and cleans up, a signal changes nothing."""
    guard = SignalGuard(JobHub())
    guard.disarm()
    guard.handle(signal.SIGTERM, None)
    assert guard.received == [signal.SIGTERM]


def test_the_heartbeat_beats_while_the_block_runs() -> None:
    """The thread calls `beat` repeatedly until the block ends."""
    beats: list[int] = []
    three = threading.Event()

    def beat() -> None:
        beats.append(1)
        if len(beats) >= 3:
            three.set()

    with heartbeat(beat, every=0.01):
        assert three.wait(timeout=10)
    assert "job-heartbeat" not in {t.name for t in threading.enumerate()}
