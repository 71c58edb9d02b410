"""`child_exits`: the loop's nap ends when a child of ours exits, and leaves no trace after."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import threading

from conveyor.orchestrator.shell.loop import child_exits


def test_a_childs_exit_ends_the_wait_early() -> None:
    """A wait of a minute returns True once the child it waits beside has exited."""
    with child_exits() as wait:
        assert wait is not None
        child = subprocess.Popen([sys.executable, "-c", "pass"])
        woke = wait(60.0)
        assert woke
        assert child.wait(timeout=30) == 0


def test_nothing_to_hear_is_a_plain_wait() -> None:
    """With no child and no signal, the wait runs out and says so."""
    with child_exits() as wait:
        assert wait is not None
        assert wait(0.05) is False


def test_the_handler_and_wakeup_fd_are_restored_after_the_block() -> None:
    """SIGCHLD's handler and the wakeup fd are what they were: the rest of the loop (forge
    calls, git, SQLite) runs with SIGCHLD at its default."""
    before = signal.getsignal(signal.SIGCHLD)
    with child_exits():
        pass
    assert signal.getsignal(signal.SIGCHLD) == before
    assert signal.set_wakeup_fd(-1) == -1


def test_off_the_main_thread_there_is_nothing_to_listen_with() -> None:
    """A loop run on another thread cannot set a wakeup fd: it gets None and polls."""
    seen: list[object] = []

    def probe() -> None:
        with child_exits() as wait:
            seen.append(wait)

    thread = threading.Thread(target=probe)
    thread.start()
    thread.join()
    assert seen == [None]


def test_a_wakeup_fd_someone_else_set_is_left_alone() -> None:
    """An event loop's wakeup fd stays theirs: the block yields None and changes nothing."""
    theirs, other = socket.socketpair()
    theirs.setblocking(False)
    previous = signal.set_wakeup_fd(theirs.fileno())
    try:
        with child_exits() as wait:
            assert wait is None
        assert signal.set_wakeup_fd(previous) == theirs.fileno()
    finally:
        theirs.close()
        other.close()
