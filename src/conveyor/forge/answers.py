"""Forge answers that rarely change, kept in a small file for ten minutes (shared by jobs).

Every stage job of a repository asks who collaborates and what the repository
is; the answers are written to `answers.json` in the repository's folder and
reused while they are less than ten minutes old (as the orchestrator's
snapshot cache does), so a short job makes no request for them.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

ANSWER_TTL = timedelta(minutes=10)
ANSWERS_FILE = "answers.json"


class AnswerFile:
    """`{key: {"value": ..., "at": epoch seconds}}` in one JSON file, written atomically."""

    def __init__(self, path: Path, now: Callable[[], datetime]) -> None:
        self.path = path
        self.now = now

    def get(self, key: str) -> object | None:
        """The answer stored under `key` less than ten minutes ago, else None."""
        entry = self._read().get(key)
        if not isinstance(entry, dict) or not isinstance(entry.get("at"), int | float):
            return None
        age = self.now().timestamp() - float(entry["at"])
        if not 0 <= age < ANSWER_TTL.total_seconds():
            return None
        value: object | None = entry.get("value")
        return value

    def put(self, key: str, value: object) -> None:
        """Remember `value` under `key` as of now (best effort: a failed write loses nothing)."""
        entries = self._read()
        entries[key] = {"value": value, "at": self.now().timestamp()}
        tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
        with contextlib.suppress(OSError):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps(entries, sort_keys=True), encoding="utf-8")
            tmp.replace(self.path)

    def _read(self) -> dict[str, object]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}
