"""The loopback fake model: its turn choice, and the SSE it streams over real HTTP."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conveyor.testing import http
from conveyor.testing.fake_model import (
    CallTool,
    Conversation,
    FakeModel,
    SayText,
    Script,
    Text,
    ToolCall,
    WriteFile,
    decide_turn,
)

pytestmark = pytest.mark.contract

SCRIPT = Script(
    steps=(
        WriteFile("/work/out.txt", "hi\n"),
        CallTool("submit_reply", {"status": "done"}),
        SayText("bye"),
    )
)


def _events(stream: str) -> list[dict[str, Any]]:
    """The JSON payloads of an SSE stream's `data:` lines, checking each names its event."""
    events = []
    for frame in stream.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in frame.splitlines())
        payload = json.loads(lines["data"])
        assert lines["event"] == payload["type"]
        events.append(payload)
    return events


def test_each_step_answers_the_request_carrying_that_many_step_results() -> None:
    """Step N is played for a conversation holding N results; past the end comes the final text."""
    names = ["Write", "Bash", "mcp__conveyor__submit_reply"]
    turns = [decide_turn(SCRIPT, Conversation(names, n, 0)) for n in range(5)]
    assert turns == [
        ToolCall("Write", {"file_path": "/work/out.txt", "content": "hi\n"}),
        ToolCall("mcp__conveyor__submit_reply", {"status": "done"}),
        Text("bye"),
        Text("Done."),
        Text("Done."),
    ]


def test_a_request_listing_no_tools_gets_text_whatever_the_step() -> None:
    """Opencode's title request and claude's side queries get text and do not use a step."""
    assert decide_turn(SCRIPT, Conversation([], 1, 0)) == Text("Fake session")


def test_writing_falls_back_to_the_shell_when_no_write_tool_is_listed() -> None:
    """Codex has no write tool: the file is written with its `exec_command`."""
    turn = decide_turn(SCRIPT, Conversation(["exec_command"], 0, 0))
    assert turn == ToolCall("exec_command", {"cmd": "printf %s 'hi\n' > /work/out.txt"})


def test_a_deferred_tool_is_found_by_its_name_in_the_request_text() -> None:
    """Claude names MCP tools in a reminder instead of listing them; the name is still used."""
    text = "Deferred tools:\nmcp__conveyor__submit_reply\n"
    turn = decide_turn(SCRIPT, Conversation(["Bash"], 1, 0, text))
    assert turn == ToolCall("mcp__conveyor__submit_reply", {"status": "done"})


def test_the_prompts_bare_mention_of_a_tool_not_yet_listed_is_waited_on_not_called() -> None:
    """A past flake: codex under load sent its first request before its MCP tools were up."""
    text = "Answer by calling the `submit_reply` tool of the `conveyor` server."
    turn = decide_turn(SCRIPT, Conversation(["exec_command"], 1, 0, text))
    assert turn == ToolCall("exec_command", {"cmd": "sleep 0.5 # 1"}, wait=True)


def test_a_missing_mcp_tool_is_waited_for_then_given_up_on() -> None:
    """Until codex lists the MCP tool the model sleeps in the shell, 80 times at most."""
    waiting = decide_turn(SCRIPT, Conversation(["exec_command"], 1, 3))
    assert waiting == ToolCall("exec_command", {"cmd": "sleep 0.5 # 4"}, wait=True)
    given_up = decide_turn(SCRIPT, Conversation(["exec_command"], 1, 80))
    assert isinstance(given_up, Text)
    assert "submit_reply" in given_up.text


def test_messages_stream_carries_a_tool_call_with_usage_and_any_model_name() -> None:
    """The Anthropic stream opens, streams the tool input as JSON deltas and ends with usage."""
    body = {
        "model": "whatever-small-model",
        "stream": True,
        "tools": [{"name": "Write"}],
        "messages": [{"role": "user", "content": "go"}],
    }
    with FakeModel(SCRIPT) as model:
        answer = http.post(f"{model.url}/v1/messages?beta=true", json=body, timeout=10)
    events = _events(answer.text)
    assert answer.headers["content-type"] == "text/event-stream"
    assert [e["type"] for e in events] == [
        "message_start",
        "ping",
        "content_block_start",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert events[0]["message"]["model"] == "whatever-small-model"
    assert events[2]["content_block"]["name"] == "Write"
    partial = "".join(e["delta"]["partial_json"] for e in events[3:5])
    assert json.loads(partial) == {"file_path": "/work/out.txt", "content": "hi\n"}
    assert events[6]["delta"]["stop_reason"] == "tool_use"
    assert events[0]["message"]["usage"]["cache_read_input_tokens"] == 30
    assert events[6]["usage"]["output_tokens"] == 12


def test_responses_stream_calls_a_namespaced_mcp_tool_and_completes_with_usage() -> None:
    """Codex lists MCP tools in a namespace; the call names the tool and its namespace."""
    tool = {"type": "function", "name": "submit_reply", "parameters": {}}
    body = {
        "model": "fake-model",
        "stream": True,
        "tools": [{"type": "namespace", "name": "mcp__conveyor", "tools": [tool]}],
        "input": [{"type": "function_call_output", "call_id": "call_fake1", "output": "ok"}],
    }
    with FakeModel(SCRIPT) as model:
        answer = http.post(f"{model.url}/v1/responses", json=body, timeout=10)
        assert model.turns == [ToolCall("mcp__conveyor__submit_reply", {"status": "done"})]
    events = _events(answer.text)
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    assert events[0]["type"] == "response.created"
    done = next(e for e in events if e["type"] == "response.output_item.done")["item"]
    assert (done["type"], done["namespace"], done["name"]) == (
        "function_call",
        "mcp__conveyor",
        "submit_reply",
    )
    assert json.loads(done["arguments"]) == {"status": "done"}
    completed = events[-1]
    assert completed["type"] == "response.completed"
    assert completed["response"]["usage"]["input_tokens_details"]["cached_tokens"] == 30


def test_every_request_is_recorded_so_a_secret_can_be_looked_for() -> None:
    """Paths, headers and bodies are kept; `saw` finds a value in any of them."""
    with FakeModel(SCRIPT) as model:
        http.post(
            f"{model.url}/v1/messages",
            json={"model": "m", "messages": []},
            headers={"x-api-key": "canary-header"},
            timeout=10,
        )
        http.get(f"{model.url}/v1/models", timeout=10)
        assert [r.path for r in model.requests] == ["/v1/messages", "/v1/models"]
        assert model.saw("canary-header")
        assert not model.saw("never-sent")
