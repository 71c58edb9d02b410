"""What a session said and did, read from its CLI's event stream (pure).

Each CLI writes its own events (claude's stream-json, codex's `exec --json` items,
opencode's `run --format json` parts); this reads the three into one list of
`Entry` values: messages, thinking, tool calls with their results, errors, and each
turn's end with what it cost where the CLI says. A line that is not a JSON object is
counted, never fatal: a transcript cut short by a crash still reads up to the cut.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from conveyor.core.transcript import Entry

Reader = Callable[[dict[str, Any]], list[Entry]]


def _obj(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: object) -> str:
    """A field as text: strings as they are, anything else as compact JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(part, dict) for part in value):
        return "\n".join(_text(part.get("text", part)) for part in value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _args(value: object) -> str:
    """A call's input: a shell command as itself, other arguments as `key=value`."""
    fields = _obj(value)
    if isinstance(fields.get("command"), str):
        return str(fields["command"])
    return ", ".join(f"{key}={_text(item)}" for key, item in fields.items())


def _claude(event: dict[str, Any]) -> list[Entry]:
    kind = event.get("type")
    blocks = _obj(event.get("message")).get("content")
    out: list[Entry] = []
    for block in blocks if isinstance(blocks, list) else []:
        part = _obj(block)
        if kind == "assistant" and part.get("type") == "text":
            out.append(Entry("text", str(part.get("text", ""))))
        elif kind == "assistant" and part.get("type") == "thinking":
            out.append(Entry("thinking", str(part.get("thinking", ""))))
        elif kind == "assistant" and part.get("type") == "tool_use":
            out.append(Entry("call", _args(part.get("input")), name=str(part.get("name"))))
        elif kind == "user" and part.get("type") == "tool_result":
            failed = part.get("is_error") is True
            out.append(Entry("result", _text(part.get("content", "")), failed=failed))
    if kind == "result":
        if event.get("is_error") is True:
            out.append(Entry("error", _text(event.get("result", event.get("subtype")))))
        cost = event.get("total_cost_usd")
        out.append(Entry("turn", _cost_text(cost)))
    return out


def _cost_text(cost: object) -> str:
    return f"${cost:.4f}" if isinstance(cost, int | float) else ""


def _codex(event: dict[str, Any]) -> list[Entry]:
    kind = event.get("type")
    item = _obj(event.get("item"))
    if kind in {"turn.failed", "error"}:
        detail = _obj(event.get("error")).get("message", event.get("message"))
        return [Entry("error", _text(detail))]
    if kind == "turn.completed":
        return [Entry("turn", "")]
    if kind != "item.completed":
        return []
    shape = item.get("type")
    if shape == "agent_message":
        return [Entry("text", str(item.get("text", "")))]
    if shape == "reasoning":
        return [Entry("thinking", str(item.get("text", "")))]
    if shape == "error":
        return [Entry("error", str(item.get("message", "")))]
    if shape == "command_execution":
        failed = item.get("exit_code") not in (0, None)
        output = str(item.get("aggregated_output", ""))
        return [
            Entry("call", str(item.get("command", "")), name="shell"),
            Entry("result", output, failed=failed),
        ]
    if shape == "mcp_tool_call":
        name = f"{item.get('server')}.{item.get('tool')}"
        error = item.get("error")
        result = _obj(item.get("result")).get("content", "") if error is None else error
        return [
            Entry("call", _args(item.get("arguments")), name=name),
            Entry("result", _text(result), failed=error is not None),
        ]
    return []


def _opencode(event: dict[str, Any]) -> list[Entry]:
    kind = event.get("type")
    part = _obj(event.get("part"))
    if kind == "text":
        return [Entry("text", str(part.get("text", "")))]
    if kind == "reasoning":
        return [Entry("thinking", str(part.get("text", "")))]
    if kind == "error":
        return [Entry("error", _text(_obj(event.get("error")).get("data", event.get("error"))))]
    if kind == "step_finish":
        return [Entry("turn", _cost_text(part.get("cost")))]
    if kind != "tool_use":
        return []
    state = _obj(part.get("state"))
    failed = state.get("status") == "error"
    output = state.get("error") if failed else state.get("output", "")
    return [
        Entry("call", _args(state.get("input")), name=str(part.get("tool"))),
        Entry("result", _text(output), failed=failed),
    ]


READERS: dict[str, Reader] = {"claude": _claude, "codex": _codex, "opencode": _opencode}


def read_entries(backend: str, lines: Iterable[str]) -> tuple[tuple[Entry, ...], int]:
    """The entries of a `backend`'s stream and how many of its lines were not JSON objects.

    A backend this does not know reads as no entries (its lines are all counted).
    """
    reader = READERS.get(backend)
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
