"""`conveyor mcp` and its relay: tools by role, validation findings, quick checks, commit paths."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Protocol

import pytest

from conveyor.agents.control import ControlHandlers, serve_control
from conveyor.agents.mcp_endpoint import McpEndpoint
from conveyor.agents.mcp_server import make_gate
from conveyor.agents.scripted.mcp_client import McpClient
from tests.contract.agents.conftest import ACCEPT

pytestmark = pytest.mark.contract

CONVEYOR = str(Path(sys.executable).parent / "conveyor")


class Start(Protocol):
    """Starts a session's MCP server for a client."""

    def __call__(self, tmp_path: Path, role: str, sock: Path | None = None) -> McpClient: ...


@pytest.fixture(params=["mcp", "mcp-relay"])
def start(request: pytest.FixtureRequest) -> Iterator[Start]:
    """Starts an `accept` session's server in tmp_path (a checkout beside it): `conveyor mcp`
    itself, or `conveyor mcp-relay` to an endpoint serving the same gate."""
    endpoints: list[McpEndpoint] = []

    def begin(tmp_path: Path, role: str, sock: Path | None = None) -> McpClient:
        (tmp_path / "checkout" / ".git").mkdir(parents=True, exist_ok=True)
        if request.param == "mcp-relay":
            endpoint = McpEndpoint(
                lambda: make_gate(
                    session_dir=tmp_path,
                    reply_model="accept",
                    role=role,
                    session_key="k",
                    control_socket=sock,
                    checkout=tmp_path / "checkout",
                )
            )
            endpoints.append(endpoint)
            args = ["mcp-relay", "--socket", str(endpoint.socket_path)]
            return McpClient(CONVEYOR, [*args, "--session-dir", str(tmp_path)], {}, tmp_path)
        args = ["mcp", "--session-dir", str(tmp_path), "--reply-model", "accept", "--role", role]
        args += ["--checkout", str(tmp_path / "checkout"), "--session-key", "k"]
        if sock is not None:
            args += ["--control-socket", str(sock)]
        return McpClient(CONVEYOR, args, dict(os.environ), tmp_path)

    yield begin
    for endpoint in endpoints:
        endpoint.close()


@pytest.fixture
def job(tmp_path: Path) -> Iterator[tuple[Path, list[Mapping[str, Any]]]]:
    """A control socket finding one problem per check, and committing whatever it is sent."""
    seen: list[Mapping[str, Any]] = []

    def check(request: Mapping[str, Any]) -> dict[str, Any]:
        seen.append(request)
        return {"ok": True, "findings": ["missing: Behaviour 1 `parse` is not checked"]}

    def commit(request: Mapping[str, Any]) -> dict[str, Any]:
        seen.append(request)
        return {"ok": True, "sha": "0123abc"}

    sock = tmp_path / "c.sock"
    with serve_control(sock, ControlHandlers(check_reply=check, commit=commit)):
        yield sock, seen


def test_a_reader_sees_submit_reply_only_and_a_bad_reply_names_its_field(
    tmp_path: Path, start: Start
) -> None:
    """No commit tool for readers; a schema failure is an error naming `verdict`."""
    client = start(tmp_path, "reader")
    try:
        assert client.list_tools() == ["submit_reply"]
        failed, text = client.call_tool("submit_reply", {**ACCEPT, "verdict": "perhaps"})
        assert failed
        assert "verdict" in text
        assert not (tmp_path / "reply.json").exists()
        failed, _ = client.call_tool("submit_reply", ACCEPT)
        assert not failed
    finally:
        client.close()
    assert json.loads((tmp_path / "reply.json").read_text()) == ACCEPT


def test_quick_check_findings_come_back_then_the_reply_is_accepted_after_three_rounds(
    tmp_path: Path, job: tuple[Path, list[Mapping[str, Any]]], start: Start
) -> None:
    """Three rounds return the job's findings; the fourth accepts and records them."""
    sock, seen = job
    client = start(tmp_path, "reader", sock)
    try:
        rounds = [client.call_tool("submit_reply", ACCEPT) for _ in range(4)]
    finally:
        client.close()
    assert [failed for failed, _ in rounds] == [True, True, True, False]
    assert "Behaviour 1" in rounds[0][1]
    assert len([r for r in seen if r["op"] == "check-reply"]) == 4
    findings = json.loads((tmp_path / "reply-findings.json").read_text())["findings"]
    assert findings == ["missing: Behaviour 1 `parse` is not checked"]


def test_the_commit_tool_refuses_escaping_and_git_paths_before_asking_the_job(
    tmp_path: Path, job: tuple[Path, list[Mapping[str, Any]]], start: Start
) -> None:
    """A symlink out of the checkout and a path in .git are refused; a good path commits."""
    sock, seen = job
    (tmp_path / "checkout").mkdir()
    (tmp_path / "checkout" / "link").symlink_to(tmp_path)
    client = start(tmp_path, "writer", sock)
    try:
        assert "commit" in client.list_tools()
        escaped = client.call_tool("commit", {"paths": ["link/reply.json"], "message": "m"})
        in_git = client.call_tool("commit", {"paths": [".git/config"], "message": "m"})
        good = client.call_tool("commit", {"paths": ["a.py"], "message": "Add a"})
    finally:
        client.close()
    assert escaped[0]
    assert "outside the checkout" in escaped[1]
    assert in_git[0]
    assert (good[0], "0123abc" in good[1]) == (False, True)
    assert [r["paths"] for r in seen] == [["a.py"]]
