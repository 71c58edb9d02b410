"""The scripted agent's two streams: claude-format stream-json out, user messages in."""

from __future__ import annotations

import json
import os
import select
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EOF = object()


def emit(event: dict[str, Any]) -> None:
    """Print one stream-json event and flush, so the runner sees it at once."""
    sys.stdout.write(json.dumps(event) + "\n")
    sys.stdout.flush()


def user_text(message: object) -> str:
    """The text of one stream-json user message (string or content blocks)."""
    if not isinstance(message, dict):
        return ""
    content = (message.get("message") or {}).get("content")
    if isinstance(content, str):
        return content
    parts = [b.get("text", "") for b in content or [] if isinstance(b, dict)]
    return "\n".join(str(p) for p in parts)


class Inbox:
    """Lines from stdin, read with select so a turn can wait for a steer with a timeout."""

    def __init__(self, fd: int = 0) -> None:
        self._fd = fd
        self._buffer = b""
        self._closed = False

    def next(self, timeout: float | None) -> str | object | None:
        """The next line's user text; None on timeout; EOF when stdin is closed."""
        while b"\n" not in self._buffer:
            if self._closed:
                if self._buffer:
                    line, self._buffer = self._buffer, b""
                    return self._decode(line)
                return EOF
            ready, _, _ = select.select([self._fd], [], [], timeout)
            if not ready:
                return None
            chunk = os.read(self._fd, 65536)
            if not chunk:
                self._closed = True
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return self._decode(line)

    @staticmethod
    def _decode(line: bytes) -> str:
        try:
            return user_text(json.loads(line))
        except ValueError:
            return line.decode("utf-8", "replace")


def usage_of(raw: dict[str, int]) -> dict[str, int]:
    """Scenario usage in Anthropic's field names."""
    return {
        "input_tokens": raw.get("input", 0),
        "output_tokens": raw.get("output", 0),
        "cache_read_input_tokens": raw.get("cache_read", 0),
        "cache_creation_input_tokens": raw.get("cache_write", 0),
    }
