"""OpenAI Responses API for the fake model: read a request, render a turn as SSE."""

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
    """Read the tools a Responses request lists and the tool outputs and user texts it holds."""
    names = list(_tools(body.get("tools") or []))
    raw = body.get("input")
    items: list[Item] = []
    for item in raw if isinstance(raw, list) else []:
        kind = str(item.get("type", ""))
        if kind.endswith("_call_output"):
            items.append(("result", str(item.get("call_id", ""))))
        elif item.get("role") == "user":
            items.append(("user", "\n".join(_texts(item.get("content")))))
    return conversation_of(names, items, text)


def _texts(content: object) -> list[str]:
    """The texts of a message's content (a string, or parts with `text`)."""
    if isinstance(content, str):
        return [content]
    parts = content if isinstance(content, list) else []
    return [str(part.get("text", "")) for part in parts if isinstance(part, dict)]


def _tools(tools: list[dict[str, Any]], namespace: str = "") -> dict[str, tuple[str, str]]:
    """Map each tool's full name to its (namespace, name); namespaces nest (codex MCP tools)."""
    found: dict[str, tuple[str, str]] = {}
    for tool in tools:
        name = str(tool.get("name") or (tool.get("function") or {}).get("name", ""))
        if tool.get("type") == "namespace":
            found.update(_tools(tool.get("tools") or [], name))
        elif name:
            full = f"{namespace}__{name}" if namespace else name
            found[full] = (namespace, name)
    return found


class _Frames:
    """Numbers the events of one response and encodes them as SSE frames."""

    def __init__(self) -> None:
        self.sequence = 0

    def frame(self, kind: str, **fields: Any) -> bytes:
        """Encode one event of type `kind` with the next sequence number."""
        event = {"type": kind, "sequence_number": self.sequence, **fields}
        self.sequence += 1
        return f"event: {kind}\ndata: {json.dumps(event)}\n\n".encode()


def _usage(usage: Usage) -> dict[str, Any]:
    """Return the usage object of a completed response (cached tokens count inside input)."""
    total_input = usage.input_tokens + usage.cache_read_tokens
    return {
        "input_tokens": total_input,
        "input_tokens_details": {"cached_tokens": usage.cache_read_tokens},
        "output_tokens": usage.output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": total_input + usage.output_tokens,
    }


def _item(
    turn: Answer, number: int, status: str, tools: dict[str, tuple[str, str]]
) -> dict[str, Any]:
    """Return the output item for a turn, finished or (with empty payload) just opened."""
    done = status == "completed"
    match turn:
        case ToolCall(name=name):
            namespace, short = tools.get(name, ("", name))
            mark = turn.mark
            item = {
                "type": "function_call",
                "id": f"fc_{mark}{number}",
                "call_id": f"call_{mark}{number}",
                "name": short,
                "arguments": arguments_json(turn) if done else "",
                "status": status,
            }
            return {**item, "namespace": namespace} if namespace else item
        case Text(text=text, refusal=refusal):
            part = (
                {"type": "refusal", "refusal": text}
                if refusal
                else {"type": "output_text", "text": text, "annotations": []}
            )
            content = [part] if done else []
            return {
                "type": "message",
                "id": f"msg_fake{number}",
                "role": "assistant",
                "status": status,
                "content": content,
            }


def render_sse(turn: Answer, body: dict[str, Any], usage: Usage, number: int) -> Iterator[bytes]:
    """Render a turn as Responses streaming events, ending with `response.completed`."""
    model = str(body.get("model", "fake"))
    frames = _Frames()
    response: dict[str, Any] = {
        "id": f"resp_fake{number}",
        "object": "response",
        "created_at": 1_800_000_000 + number,
        "status": "in_progress",
        "model": model,
        "output": [],
        "usage": None,
    }
    yield frames.frame("response.created", response=response)
    yield frames.frame("response.in_progress", response=response)
    tools = _tools(body.get("tools") or [])
    opened = _item(turn, number, "in_progress", tools)
    yield frames.frame("response.output_item.added", output_index=0, item=opened)
    done = _item(turn, number, "completed", tools)
    match turn:
        case ToolCall():
            ids: dict[str, Any] = {"item_id": done["id"], "output_index": 0}
            payload = done["arguments"]
            yield frames.frame("response.function_call_arguments.delta", delta=payload, **ids)
            yield frames.frame("response.function_call_arguments.done", arguments=payload, **ids)
        case Text(refusal=True):
            ids = {"item_id": done["id"], "output_index": 0, "content_index": 0}
            part = done["content"][0]
            yield frames.frame("response.content_part.added", part={**part, "refusal": ""}, **ids)
            yield frames.frame("response.refusal.delta", delta=part["refusal"], **ids)
            yield frames.frame("response.refusal.done", refusal=part["refusal"], **ids)
            yield frames.frame("response.content_part.done", part=part, **ids)
        case Text(text=text):
            ids = {"item_id": done["id"], "output_index": 0, "content_index": 0}
            part = {"type": "output_text", "text": text, "annotations": []}
            yield frames.frame("response.content_part.added", part={**part, "text": ""}, **ids)
            yield frames.frame("response.output_text.delta", delta=text, **ids)
            yield frames.frame("response.output_text.done", text=text, **ids)
            yield frames.frame("response.content_part.done", part=part, **ids)
    yield frames.frame("response.output_item.done", output_index=0, item=done)
    finished = {**response, "status": "completed", "output": [done], "usage": _usage(usage)}
    yield frames.frame("response.completed", response=finished)


ERROR_TYPES = {
    400: "invalid_request_error",
    401: "invalid_request_error",
    403: "permission_denied",
    429: "rate_limit_exceeded",
    500: "server_error",
    503: "server_error",
    529: "server_error",
}


def render_error(reject: Reject) -> bytes:
    """The OpenAI API's error body for a rejected request (or the step's own body)."""
    if reject.body:
        return reject.body.encode()
    kind = reject.kind or ERROR_TYPES.get(reject.status, "server_error")
    error = {"message": reject.message, "type": kind, "code": kind, "param": None}
    return json.dumps({"error": error}).encode()
