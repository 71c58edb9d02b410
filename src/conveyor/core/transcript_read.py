"""What a session said and did, read from its CLI's event stream (pure).

Each CLI writes its own events (claude's stream-json, codex's `exec --json` items,
opencode's `run --format json` parts); its backend's `transcript` (`agents/backends/`)
reads one event into `Entry` values: messages, thinking, tool calls with their results,
errors, and each turn's end with what it cost where the CLI says; this reads a stream
with it, and holds the field readers they share. A line that is not a JSON object is
counted, never fatal: a transcript cut short by a crash still reads up to the cut.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from conveyor.core.transcript import Entry

Reader = Callable[[dict[str, Any]], list[Entry]]


def obj(value: object) -> dict[str, Any]:
    """A JSON object from an event's field; anything else reads as an empty object."""
    return value if isinstance(value, dict) else {}


def text_of(value: object) -> str:
    """A field as text: strings as they are, anything else as compact JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(part, dict) for part in value):
        return "\n".join(text_of(part.get("text", part)) for part in value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def args_of(value: object) -> str:
    """A call's input: a shell command as itself, other arguments as `key=value`."""
    fields = obj(value)
    if isinstance(fields.get("command"), str):
        return str(fields["command"])
    return ", ".join(f"{key}={text_of(item)}" for key, item in fields.items())


def cost_text(cost: object) -> str:
    """A turn's cost as the transcript shows it (nothing when the CLI says none)."""
    return f"${cost:.4f}" if isinstance(cost, int | float) else ""


def read_entries(reader: Reader | None, lines: Iterable[str]) -> tuple[tuple[Entry, ...], int]:
    """The entries `reader` finds in a stream and how many of its lines were not JSON objects.

    With no reader (a backend this Conveyor does not know) it reads as no entries (its lines
    are all counted).
    """
    entries: list[Entry] = []
    unparsed = 0
    for line in lines:
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except ValueError:
            event = None
        if not isinstance(event, dict) or reader is None:
            unparsed += 1
            continue
        entries.extend(reader(event))
    return tuple(entries), unparsed
