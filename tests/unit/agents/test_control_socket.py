"""The control socket at paths longer than a Unix socket can hold."""

from __future__ import annotations

import stat
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from conveyor.agents.control import ControlError, ControlHandlers, request_control, serve_control
from conveyor.agents.reply_gate import ReplyGate
from conveyor.core.session import SessionRole

GOOD: dict[str, Any] = {
    "verdict": "pass",
    "reason": "r",
    "missing": [],
    "no_tests_reason_holds": None,
    "summary": "s",
}


def _long_socket(tmp_path: Path) -> Path:
    """A socket path of exactly 200 characters, as deep job folders make."""
    stem = tmp_path / "jobs"
    room = 200 - len(str(stem)) - len("/control.sock") - 1
    path = stem / ("x" * room) / "control.sock"
    path.parent.mkdir(parents=True)
    assert len(str(path)) == 200
    return path


def _findings(request: Mapping[str, Any]) -> dict[str, Any]:
    return {"ok": True, "findings": ["summary: too short"]}


def test_a_200_character_socket_path_is_served_and_answers(tmp_path: Path) -> None:
    """A long path becomes a symlink to a short private socket, and requests through it work."""
    path = _long_socket(tmp_path)
    status = ControlHandlers(status=lambda r: {"ok": True, "where": "job"})
    with serve_control(path, status) as server:
        assert path.is_symlink()
        assert len(str(server.socket_path)) <= 100
        private = server.socket_path.parent
        assert stat.S_IMODE(private.stat().st_mode) == 0o700
        assert request_control(path, {"op": "status"}) == {"ok": True, "where": "job"}
        assert request_control(server.socket_path, {"op": "status"})["ok"] is True
    assert not path.exists()
    assert not path.is_symlink()
    assert not private.exists()


def test_a_reply_through_a_long_socket_path_is_checked_not_passed(tmp_path: Path) -> None:
    """The quick checks reach the job through a long path, so the reply gets its findings."""
    path = _long_socket(tmp_path)
    session = tmp_path / "s"
    session.mkdir()
    gate = ReplyGate(session, "accept", SessionRole.READER, "k", control_socket=path)
    with serve_control(path, ControlHandlers(check_reply=_findings)):
        answer = gate.submit(dict(GOOD))
    assert answer.error
    assert "summary: too short" in answer.text
    assert not (session / "reply.json").exists()


def test_a_short_socket_path_is_bound_where_asked(tmp_path: Path) -> None:
    """A path that fits is the socket itself, with no symlink or private folder."""
    path = tmp_path / "c.sock"
    with serve_control(path, ControlHandlers()) as server:
        assert server.socket_path == path
        assert stat.S_ISSOCK(path.lstat().st_mode)
    assert not path.exists()


def test_close_ends_the_accept_loop_and_refuses_later_requests(tmp_path: Path) -> None:
    """`close` returns with the server's accept loop ended, and nothing answers after it.

    (A connection's handler thread is a daemon that may still be closing its socket, as it
    was under `serve_forever`: its client has had its answer.)"""
    path = tmp_path / "c.sock"
    before = set(threading.enumerate())
    server = serve_control(path, ControlHandlers(status=lambda r: {"ok": True}))
    assert request_control(path, {"op": "status"}) == {"ok": True}
    server.close()
    left = [t for t in threading.enumerate() if t not in before and t.name == "control"]
    assert left == []
    with pytest.raises(ControlError):
        request_control(path, {"op": "status"}, timeout=5)
