"""The job's control hub: what the control socket and the signal handlers reach.

The runner registers the stage's quick checks (`set_check_reply`) and tracks
each running session's handle (`track`), so `steer` and an interrupt reach it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from conveyor.agents.control import Answer, ControlHandlers
from conveyor.agents.process import SessionHandle
from conveyor.job.effects.push import CommitRefused

CheckReply = Callable[[str, Mapping[str, Any]], list[str]]
"""(session key, reply object) -> findings (`field.path: problem`); empty means accepted."""
Commit = Callable[[list[str], str], str | CommitRefused]
"""(paths, message) -> the new commit's SHA, or the refusal naming refused paths."""
Status = Callable[[], dict[str, Any]]


class JobHub:
    """Mutable registry shared by the runner, the control socket and signal handlers."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sessions: dict[str, SessionHandle] = {}
        self._check_reply: CheckReply | None = None
        self._commit: Commit | None = None
        self._status: Status | None = None
        self.steers: list[str] = []
        self.interrupted = threading.Event()

    def set_check_reply(self, check: CheckReply | None) -> None:
        """Register (or clear with None) the stage's quick checks for `check-reply`."""
        with self._lock:
            self._check_reply = check

    def set_commit(self, commit: Commit | None) -> None:
        """Register the job's commit (the job does this; writers only)."""
        with self._lock:
            self._commit = commit

    def set_status(self, status: Status | None) -> None:
        """Register what `status` answers."""
        with self._lock:
            self._status = status

    @contextmanager
    def track(self, key: str, handle: SessionHandle) -> Iterator[SessionHandle]:
        """Make a running session reachable by steer and abort while the block runs."""
        with self._lock:
            self._sessions[key] = handle
        if self.interrupted.is_set():
            handle.abort()
        try:
            yield handle
        finally:
            with self._lock:
                self._sessions.pop(key, None)

    def running(self) -> list[str]:
        """Keys of the sessions running now."""
        with self._lock:
            return sorted(self._sessions)

    def steer(self, text: str) -> int:
        """Send `text` to every running session; how many got it."""
        with self._lock:
            handles = list(self._sessions.values())
            self.steers.append(text)
        for handle in handles:
            handle.steer(text)
        return len(handles)

    def interrupt(self) -> None:
        """Mark the job interrupted and abort every running session."""
        self.interrupted.set()
        with self._lock:
            handles = list(self._sessions.values())
        for handle in handles:
            handle.abort()

    def handlers(self) -> ControlHandlers:
        """The control socket's handlers, delegating to what is registered at call time."""
        return ControlHandlers(
            check_reply=self._on_check_reply,
            commit=self._on_commit,
            steer=self._on_steer,
            status=self._on_status,
        )

    def _on_check_reply(self, request: Mapping[str, Any]) -> Answer:
        check = self._check_reply
        reply = request.get("reply")
        if not isinstance(reply, Mapping):
            return {"ok": False, "error": "check-reply needs a `reply` object"}
        findings = check(str(request.get("session", "")), reply) if check else []
        return {"ok": True, "findings": findings}

    def _on_commit(self, request: Mapping[str, Any]) -> Answer:
        commit = self._commit
        if commit is None:
            return {"ok": False, "error": "this job does not commit (not a writer)"}
        paths, message = request.get("paths"), request.get("message")
        if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
            return {"ok": False, "error": "commit needs `paths`, a list of strings"}
        if not isinstance(message, str) or not message.strip():
            return {"ok": False, "error": "commit needs a non-empty `message`"}
        sha = commit(paths, message)
        if isinstance(sha, CommitRefused):
            return {"ok": False, "error": sha.reason}
        return {"ok": True, "sha": sha}

    def _on_steer(self, request: Mapping[str, Any]) -> Answer:
        text = request.get("text")
        if not isinstance(text, str) or not text.strip():
            return {"ok": False, "error": "steer needs a non-empty `text`"}
        return {"ok": True, "sessions": self.steer(text)}

    def _on_status(self, _request: Mapping[str, Any]) -> Answer:
        extra = self._status() if self._status else {}
        return {"ok": True, "sessions": self.running(), **extra}
