"""Anthropic Messages API for the fake model: read a request, render a turn as SSE or JSON."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from conveyor.testing.fake_model.script import (
    Answer,
    Conversation,
    Item,
    Text,
    ToolCall,
    Usage,
    arguments_json,
    conversation_of,
)
from conveyor.testing.fake_model.steps import Reject


def read_conversation(body: dict[str, Any], text: str) -> Conversation:
    """Read the tools a Messages request lists and the tool results and user texts it holds."""
    names = [str(tool.get("name", "")) for tool in body.get("tools") or []]
    items: list[Item] = []
    for message in body.get("messages") or []:
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            items.append(("user", content))
            continue
        blocks = content if isinstance(content, list) else []
        items += [
            ("result", str(block.get("tool_use_id", "")))
            for block in blocks
            if block.get("type") == "tool_result"
        ]
        # A message may carry tool results and new text together (a CLI resumed after
        # an interrupted tool call sends both): the text comes after the results.
        said = [str(b.get("text", "")) for b in blocks if b.get("type") == "text"]
        if said:
            items.append(("user", "\n".join(said)))
    return conversation_of(names, items, text)


def _sse(event: dict[str, Any]) -> bytes:
    """Encode one event as an SSE frame named after its type."""
    return f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()


def _usage(usage: Usage, output_tokens: int) -> dict[str, int]:
    """Return the usage object Messages responses carry."""
    return {
        "input_tokens": usage.input_tokens,
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": usage.cache_write_tokens,
        "cache_read_input_tokens": usage.cache_read_tokens,
    }


def _block(turn: Answer, number: int) -> dict[str, Any]:
    """Return the finished content block for a turn."""
    match turn:
        case ToolCall(name=name, arguments=arguments):
            return {
                "type": "tool_use",
                "id": f"toolu_{turn.mark}{number}",
                "name": name,
                "input": arguments,
            }
        case Text(text=text):
            return {"type": "text", "text": text}


def _stop_reason(turn: Answer) -> str:
    """Return the stop reason that matches the turn."""
    if isinstance(turn, ToolCall):
        return "tool_use"
    return "refusal" if turn.refusal else "end_turn"


def render_json(turn: Answer, model: str, usage: Usage, number: int) -> bytes:
    """Render a turn as a non-streaming Messages response."""
    message = {
        "id": f"msg_fake{number}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [_block(turn, number)],
        "stop_reason": _stop_reason(turn),
        "stop_sequence": None,
        "usage": _usage(usage, usage.output_tokens),
    }
    return json.dumps(message).encode()


def render_sse(turn: Answer, model: str, usage: Usage, number: int) -> Iterator[bytes]:
    """Render a turn as the Messages streaming events, ending with `message_stop`."""
    start: dict[str, Any] = {
        "id": f"msg_fake{number}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": _usage(usage, 1),
    }
    yield _sse({"type": "message_start", "message": start})
    yield _sse({"type": "ping"})
    match turn:
        case ToolCall():
            opening: dict[str, Any] = {**_block(turn, number), "input": {}}
            payload = arguments_json(turn)
            halves = [payload[: len(payload) // 2], payload[len(payload) // 2 :]]
            deltas = [{"type": "input_json_delta", "partial_json": half} for half in halves]
        case Text(text=text):
            opening = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": text}]
    yield _sse({"type": "content_block_start", "index": 0, "content_block": opening})
    for delta in deltas:
        yield _sse({"type": "content_block_delta", "index": 0, "delta": delta})
    yield _sse({"type": "content_block_stop", "index": 0})
    yield _sse(
        {
            "type": "message_delta",
            "delta": {"stop_reason": _stop_reason(turn), "stop_sequence": None},
            "usage": {"output_tokens": usage.output_tokens},
        }
    )
    yield _sse({"type": "message_stop"})


ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    503: "api_error",
    529: "overloaded_error",
}


def render_error(reject: Reject) -> bytes:
    """The Messages API's error body for a rejected request (or the step's own body)."""
    if reject.body:
        return reject.body.encode()
    kind = reject.kind or ERROR_TYPES.get(reject.status, "api_error")
    error = {"type": kind, "message": reject.message}
    return json.dumps({"type": "error", "error": error, "request_id": "req_fake"}).encode()
