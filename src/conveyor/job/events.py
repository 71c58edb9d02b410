"""`runs/issue-N/events.jsonl`: one JSON object per line for what a stage job did."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Literal, get_args

EventKind = Literal[
    "claimed",
    "released",
    "session-started",
    "session-ended",
    "finding",
    "pushed",
    "pr-opened",
    "checks",
    "stopped",
    "asked",
    "split",
    "merged",
    "stacked",
    "restacked",
    "pr-retargeted",
    "network-blocked",
    "instructions",
]
EVENT_KINDS: frozenset[str] = frozenset(get_args(EventKind))

EVENTS_FILE = "events.jsonl"
_RESERVED = frozenset({"ts", "issue", "stage", "job", "kind"})


def stamp(moment: datetime) -> str:
    """A UTC time as `2026-01-31T12:00:00.123Z`."""
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


class EventLog:
    """Appends events of one job to the issue's events file (safe across threads)."""

    def __init__(
        self, path: Path, *, issue: int, stage: str, job: str, now: Callable[[], datetime]
    ) -> None:
        self.path = path
        self._head = {"issue": issue, "stage": stage, "job": job}
        self._now = now
        self._lock = threading.Lock()

    def emit(self, kind: EventKind, **fields: object) -> None:
        """Append `{ts, issue, stage, job, kind, **fields}`; values must be JSON-able."""
        if kind not in EVENT_KINDS:
            msg = f"unknown event kind {kind!r}"
            raise ValueError(msg)
        clash = _RESERVED & fields.keys()
        if clash:
            msg = f"event fields may not be named {sorted(clash)}"
            raise ValueError(msg)
        record = {"ts": stamp(self._now()), **self._head, "kind": kind, **fields}
        line = json.dumps(record, default=str, sort_keys=False) + "\n"
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as out:
                out.write(line)


def read_events(path: Path, *, lenient: bool = False) -> list[dict[str, object]]:
    """Every event in an events file (a missing file has none). `lenient` skips a line that
    is not a JSON object (one torn by a crash) instead of raising `ValueError`."""
    if not path.exists():
        return []
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except ValueError:
            if not lenient:
                raise
            continue
        if isinstance(event, dict) or not lenient:
            found.append(event)
    return found
