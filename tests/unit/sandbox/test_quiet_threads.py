"""A process's stop signal reaches its main thread's handler even when the kernel picks a
worker thread to deliver it to."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading

from conveyor.sandbox.quiet_threads import STOP_SIGNALS, worker

# The job's shape: a SIGTERM handler in the main thread, which waits with a long timeout
# while a worker thread (a session's reader, the heartbeat) runs.
PROCESS = """
import signal, sys, threading, time
from conveyor.sandbox.quiet_threads import worker

signal.signal(signal.SIGTERM, lambda *_: sys.exit(3))
ids = []
started = threading.Event()
worker(lambda: (ids.append(threading.get_native_id()), started.set(), time.sleep(60))).start()
started.wait()
print(ids[0], flush=True)
threading.Event().wait(60)
"""


def test_a_worker_runs_its_target_with_the_stop_signals_blocked() -> None:
    seen: list[set[int]] = []
    thread = worker(lambda: seen.append(set(signal.pthread_sigmask(signal.SIG_BLOCK, []))))
    thread.start()
    thread.join(timeout=10)
    assert seen
    assert seen[0] >= STOP_SIGNALS
    assert not STOP_SIGNALS & set(signal.pthread_sigmask(signal.SIG_BLOCK, []))


def test_a_sigterm_sent_to_a_worker_thread_is_handled_by_the_waiting_main_thread() -> None:
    """Linux tries the thread a signal is sent to first; blocked there, the main thread takes
    it and its 60 s wait ends at once (a plain thread held it until the wait timed out)."""
    with subprocess.Popen(
        [sys.executable, "-c", PROCESS], stdout=subprocess.PIPE, text=True
    ) as proc:
        assert proc.stdout is not None
        tid = int(proc.stdout.readline())
        try:
            assert tid != proc.pid
            os.kill(tid, signal.SIGTERM)
            assert proc.wait(timeout=20) == 3
        finally:
            proc.kill()


def test_threads_a_worker_starts_inherit_the_mask() -> None:
    seen: list[set[int]] = []

    def inner() -> None:
        seen.append(set(signal.pthread_sigmask(signal.SIG_BLOCK, [])))

    def outer() -> None:
        child = threading.Thread(target=inner)
        child.start()
        child.join()

    thread = worker(outer)
    thread.start()
    thread.join(timeout=10)
    assert seen
    assert seen[0] >= STOP_SIGNALS
