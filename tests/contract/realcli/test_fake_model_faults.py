"""The fake model's failing answers, steer branches and playbook, over real HTTP."""

from __future__ import annotations

import json

import httpx
import pytest

from conveyor.testing import http
from conveyor.testing.fake_model import (
    Branch,
    CallTool,
    FakeModel,
    Hangup,
    Reject,
    RunCommand,
    Script,
    Text,
    ToolCall,
)
from conveyor.testing.fake_model.playbook import Part, Playbook, session_kind

pytestmark = pytest.mark.contract

TOOLS = [{"name": "Bash"}, {"name": "Read"}, {"name": "mcp__conveyor__submit_reply"}]


def _messages(*contents: object) -> dict[str, object]:
    messages = [{"role": "user", "content": content} for content in contents]
    return {"model": "m", "stream": False, "tools": TOOLS, "messages": messages}


def test_a_rejecting_step_answers_every_request_with_its_status_body_and_headers() -> None:
    """401 with the Messages API's error body; the same answer to a retry."""
    reset = ("retry-after", "30")
    with FakeModel(Script((Reject(401, "invalid x-api-key", headers=(reset,)),))) as model:
        for _ in range(2):
            answer = http.post(f"{model.url}/v1/messages", json=_messages("go"), timeout=10)
            assert answer.status_code == 401
            assert answer.headers["retry-after"] == "30"
            assert answer.json()["error"] == {
                "type": "authentication_error", "message": "invalid x-api-key"
            }  # fmt: skip


def test_a_hangup_closes_the_connection_without_an_answer() -> None:
    """What a network failure looks like to a client."""
    with FakeModel(Script((Hangup(),))) as model, pytest.raises(httpx.RemoteProtocolError):
        http.post(f"{model.url}/v1/responses", json={"input": [], "tools": []}, timeout=10)


def test_a_steer_in_a_later_user_message_switches_to_its_branch() -> None:
    """The branch's steps count from the steer: its first step answers the next request."""
    steered = Script((CallTool("submit_reply", {"status": "handoff"}),))
    script = Script((RunCommand("make"),), repeat_last=True, branches=(Branch("STEER", steered),))
    result = {"type": "tool_result", "tool_use_id": "toolu_fake1", "content": "ok"}
    body = _messages("go", [result], [{"type": "text", "text": "STEER now"}])
    with FakeModel(script) as model:
        answer = http.post(f"{model.url}/v1/messages", json=body, timeout=10)
        assert model.turns == [ToolCall("mcp__conveyor__submit_reply", {"status": "handoff"})]
    assert answer.json()["content"][0]["name"] == "mcp__conveyor__submit_reply"


def test_a_playbook_reads_the_issue_file_first_then_plays_the_tagged_script() -> None:
    """Two issues' triage scripts: the tag in the issue's title picks one."""
    reply = Script((CallTool("submit_reply", {"decision": "ready"}),))
    other = Script((CallTool("submit_reply", {"decision": "reject"}),))
    book = Playbook([Part("triage", other, "b"), Part("triage", reply, "a")])
    task = "You are the triage reader. Triage issue #3. Its text is in `/runs/issue-3/issue.md`."
    with FakeModel(book) as model:
        http.post(f"{model.url}/v1/messages", json=_messages(task), timeout=10)
        read = {"type": "tool_result", "tool_use_id": "toolu_look1",
                "content": "# #3: Add a thing [a]\n\nPlease."}  # fmt: skip
        http.post(f"{model.url}/v1/messages", json=_messages(task, [read]), timeout=10)
        first, second = model.turns
    assert first == ToolCall("Read", {"file_path": "/runs/issue-3/issue.md"}, look=True)
    assert second == ToolCall("mcp__conveyor__submit_reply", {"decision": "ready"})


def test_a_request_naming_no_session_role_is_answered_with_text() -> None:
    """A CLI's side request (a title, a summary) gets words, not a step."""
    assert session_kind("Summarise this conversation.") is None
    with FakeModel(Playbook([])) as model:
        answer = http.post(f"{model.url}/v1/messages", json=_messages("hi"), timeout=10)
    assert json.loads(answer.text)["content"][0]["type"] == "text"
    assert model.turns == [Text("fake model: no session role")]
