"""`conveyor mcp-relay` to a job's `McpEndpoint`: exits, reconnects, closes, refuses, hides."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from conveyor.agents.mcp_endpoint import McpEndpoint
from conveyor.agents.mcp_server import make_gate
from conveyor.agents.runner import relay_argv, run_session
from conveyor.agents.scripted.mcp_client import McpClient
from conveyor.core.session import SessionStatus
from tests.contract.agents.conftest import ACCEPT, Sessions

pytestmark = pytest.mark.contract

CONVEYOR = str(Path(sys.executable).parent / "conveyor")
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}


@pytest.fixture
def endpoint(tmp_path: Path) -> Iterator[McpEndpoint]:
    """An endpoint serving an `accept` reader session whose folder is tmp_path."""
    served = McpEndpoint(
        lambda: make_gate(session_dir=tmp_path, reply_model="accept", role="reader")
    )
    yield served
    served.close()


def relay(socket_path: Path, session_dir: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """A relay process started as sessions start it, with pipes on all three streams."""
    args = relay_argv(socket_path, session_dir)
    pipe = subprocess.PIPE
    return subprocess.Popen(args, stdin=pipe, stdout=pipe, stderr=pipe, env=env)


def initialized(proc: subprocess.Popen[bytes]) -> dict[str, object]:
    """Send `initialize` through the relay and read its answer."""
    assert proc.stdin is not None
    assert proc.stdout is not None
    proc.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
    proc.stdin.flush()
    answer = json.loads(proc.stdout.readline())
    assert isinstance(answer, dict)
    return answer


def test_the_relay_answers_initialize_and_exits_zero_when_the_client_closes_stdin(
    tmp_path: Path, endpoint: McpEndpoint
) -> None:
    """The server's answer comes back, and closing stdin ends the relay with 0."""
    proc = relay(endpoint.socket_path, tmp_path, {"PATH": os.environ["PATH"]})
    answer = initialized(proc)
    assert proc.stdin is not None
    proc.stdin.close()
    assert proc.wait(timeout=10) == 0
    result = answer["result"]
    assert isinstance(result, dict)
    assert result["serverInfo"]["name"] == "conveyor"


def test_the_relay_records_the_names_of_its_variables_never_their_values(
    tmp_path: Path, endpoint: McpEndpoint
) -> None:
    """`mcp-env.json` lists the relay's variable names, as `conveyor mcp` does."""
    env = {"PATH": os.environ["PATH"], "CONVEYOR_ISSUE": "secret-value-7"}
    proc = relay(endpoint.socket_path, tmp_path, env)
    proc.communicate(timeout=10)
    record = (tmp_path / "mcp-env.json").read_text()
    assert "CONVEYOR_ISSUE" in json.loads(record)
    assert "secret-value-7" not in record


def test_two_connections_in_turn_each_get_a_working_server(
    tmp_path: Path, endpoint: McpEndpoint
) -> None:
    """A CLI that starts its MCP server twice finds the tools both times (here through the
    `conveyor mcp-relay` command a person can run)."""
    args = ["mcp-relay", "--socket", str(endpoint.socket_path), "--session-dir", str(tmp_path)]
    first = McpClient(CONVEYOR, args, {}, tmp_path)
    try:
        assert first.list_tools() == ["submit_reply"]
    finally:
        first.close()
    second = McpClient(CONVEYOR, args, {}, tmp_path)
    try:
        assert second.list_tools() == ["submit_reply"]
        failed, _ = second.call_tool("submit_reply", ACCEPT)
    finally:
        second.close()
    assert not failed
    assert json.loads((tmp_path / "reply.json").read_text()) == ACCEPT


def test_closing_the_endpoint_ends_a_connected_relay_promptly(tmp_path: Path) -> None:
    """The job closing its endpoint mid-session neither hangs nor leaves the relay running."""
    served = McpEndpoint(
        lambda: make_gate(session_dir=tmp_path, reply_model="accept", role="reader")
    )
    proc = relay(served.socket_path, tmp_path, {"PATH": os.environ["PATH"]})
    try:
        initialized(proc)
        began = time.monotonic()
        served.close()
        closed_s = time.monotonic() - began
        proc.wait(timeout=10)
    finally:
        proc.kill()
        proc.communicate()
    assert closed_s < 3.0
    assert not served.socket_path.exists()


def test_a_relay_given_a_bad_argument_says_which_in_its_last_line_and_exits_two(
    tmp_path: Path,
) -> None:
    """An unknown option or a missing value is named; nothing is relayed."""
    cases = [
        ("--sockt", ["--sockt", "x"]),
        ("--socket", ["--socket"]),
        ("--socket", ["--session-dir", "d"]),
    ]
    for named, bad in cases:
        proc = subprocess.run([*relay_argv(tmp_path / "x.sock", tmp_path)[:4], *bad],
                              capture_output=True, text=True, timeout=10, check=False)  # fmt: skip
        assert proc.returncode == 2, bad
        assert named in proc.stderr.splitlines()[-1], proc.stderr


def test_a_relay_that_cannot_connect_says_so_on_one_line_and_exits_one(tmp_path: Path) -> None:
    """No endpoint at the path: exit 1, and stderr names the socket."""
    missing = tmp_path / "gone.sock"
    proc = relay(missing, tmp_path, {"PATH": os.environ["PATH"]})
    _, err = proc.communicate(timeout=10)
    assert proc.returncode == 1
    lines = err.decode().splitlines()
    assert len(lines) == 1
    assert str(missing) in lines[0]


def test_the_socket_is_private_and_short_whatever_the_session_folder(
    endpoint: McpEndpoint,
) -> None:
    """Mode 0600 in a 0700 folder, and a path a Unix socket can bind."""
    assert stat.S_IMODE(endpoint.socket_path.stat().st_mode) == 0o600
    assert stat.S_IMODE(endpoint.socket_path.parent.stat().st_mode) == 0o700
    assert len(os.fsencode(endpoint.socket_path)) <= 100


@pytest.mark.parametrize(("mode", "relayed"), [("", True), ("process", False)])
def test_a_session_replies_through_the_relay_or_with_conveyor_mcp_process_its_own_server(
    sessions: Sessions, mode: str, relayed: bool
) -> None:
    """By default the CLI's MCP config starts the relay; `CONVEYOR_MCP=process` starts `mcp`."""
    scenario = sessions.scenario({"turns": [{"actions": [{"reply": ACCEPT}]}]})
    spec = sessions.spec(scenario)
    result = run_session(spec, {**os.environ, "CONVEYOR_MCP": mode})
    assert result.status is SessionStatus.REPLIED
    assert json.loads((spec.session_dir / "reply.json").read_text()) == ACCEPT
    server = json.loads((spec.session_dir / "mcp.json").read_text())["mcpServers"]["conveyor"]
    assert ("--socket" in server["args"]) == relayed
