"""`child_exits`: the loop's nap ends when a child of ours exits, and leaves no trace after."""

from __future__ import annotations

import os
import select
import signal
import socket
import subprocess
import sys
import threading

import pytest

from conveyor.orchestrator.shell.child_exits import child_exits
from conveyor.orchestrator.shell.loop import Sleep


def test_a_childs_exit_ends_the_nap_early() -> None:
    """A minute's nap given the pipe returns once the child beside it has exited."""
    with child_exits() as exits:
        assert exits is not None
        child = subprocess.Popen([sys.executable, "-c", "pass"])
        assert Sleep().wait(60.0, also=exits.fd) is False  # ended by the exit, not a wake
        assert child.wait(timeout=30) == 0
        exits.drain()
        assert Sleep().wait(0.05, also=exits.fd) is False  # drained: nothing to hear


def test_the_pipe_is_readable_only_after_an_exit() -> None:
    """Drained, the pipe stays quiet until a child exits."""
    with child_exits() as exits:
        assert exits is not None
        exits.drain()
        assert not _readable(exits.fd)
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        assert _readable(exits.fd, 30.0)


def _readable(fd: int, timeout: float = 0.0) -> bool:
    return bool(select.select([fd], [], [], timeout)[0])


def test_the_handler_and_wakeup_fd_are_restored_after_the_block() -> None:
    """SIGCHLD's handler and the wakeup fd are what they were: the rest of the loop (forge
    calls, git, SQLite) runs with SIGCHLD at its default."""
    before = signal.getsignal(signal.SIGCHLD)
    with child_exits() as exits:
        assert exits is not None
        fd = exits.fd
    assert signal.getsignal(signal.SIGCHLD) == before
    assert signal.set_wakeup_fd(-1) == -1
    with pytest.raises(OSError, match="Bad file descriptor"):
        os.fstat(fd)  # the pipe is closed


def test_off_the_main_thread_there_is_nothing_to_listen_with() -> None:
    """A loop run on another thread cannot set a wakeup fd: it gets None and polls."""
    seen: list[object] = []

    def probe() -> None:
        with child_exits() as exits:
            seen.append(exits)

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
        with child_exits() as exits:
            assert exits is None
        assert signal.set_wakeup_fd(previous) == theirs.fileno()
    finally:
        theirs.close()
        other.close()
