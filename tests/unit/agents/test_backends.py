"""What each backend promises a session: read-only tools for readers, its MCP server, its config."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from conveyor.agents.backends.base import McpCommand
from conveyor.agents.backends.claude import ClaudeBackend
from conveyor.agents.backends.codex import CodexBackend, toml_value
from conveyor.agents.backends.opencode import OpencodeBackend
from conveyor.agents.launch import resolve_choice
from conveyor.core.config import AgentChoice
from conveyor.core.session import SessionIdentity, SessionRole, SessionSpec

MCP = McpCommand("/venv/bin/conveyor", ("mcp", "--reply-model", "review"), {"CONVEYOR_ISSUE": "3"})


def spec(role: SessionRole, **changes: Any) -> SessionSpec:
    """A spec for backend tests; nothing is launched."""
    base: dict[str, Any] = {
        "role": role,
        "backend": "claude",
        "model": "m",
        "system_prompt": "sys",
        "task": "task",
        "reply_model": "review",
        "cwd": Path("/checkout"),
        "session_dir": Path("/sessions/k"),
        "session_key": "k",
        "identity": SessionIdentity(3, "review", "review"),
    }
    return SessionSpec(**(base | changes))


def option(argv: list[str], flag: str) -> str:
    """The value following `flag`."""
    return argv[argv.index(flag) + 1]


def test_claude_readers_get_read_only_tools_and_writers_may_edit_and_commit() -> None:
    """No Write, Edit or unrestricted Bash for readers; commit only for writers."""
    reader = option(
        ClaudeBackend().launch(spec(SessionRole.READER), "m", "claude", MCP).argv, "--allowedTools"
    )
    writer = option(
        ClaudeBackend().launch(spec(SessionRole.WRITER), "m", "claude", MCP).argv, "--allowedTools"
    )
    reader_tools = reader.split(",")
    assert not {"Write", "Edit", "MultiEdit", "Bash", "mcp__conveyor__commit"} & set(reader_tools)
    assert "mcp__conveyor__submit_reply" in reader_tools
    assert {"Write", "Edit", "Bash", "mcp__conveyor__commit"} <= set(writer.split(","))


def test_claude_never_bypasses_permissions_and_uses_only_our_mcp_server() -> None:
    """dontAsk with an allowlist (bypassPermissions is refused as root); strict MCP config."""
    launch = ClaudeBackend().launch(spec(SessionRole.WRITER), "m", "claude", MCP)
    assert option(launch.argv, "--permission-mode") == "dontAsk"
    assert "--strict-mcp-config" in launch.argv
    config = json.loads(launch.files[Path(option(launch.argv, "--mcp-config"))])
    assert config["mcpServers"]["conveyor"]["env"] == {"CONVEYOR_ISSUE": "3"}
    assert launch.keep_stdin_open


def test_codex_sandbox_follows_the_role_and_its_mcp_server_is_approved() -> None:
    """read-only for readers, workspace-write for writers; the server's tools need no approval."""
    reader = CodexBackend().launch(spec(SessionRole.READER), "m", "codex", MCP)
    writer = CodexBackend().launch(spec(SessionRole.WRITER), "m", "codex", MCP)
    assert option(reader.argv, "--sandbox") == "read-only"
    assert option(writer.argv, "--sandbox") == "workspace-write"
    overrides = [reader.argv[i + 1] for i, a in enumerate(reader.argv) if a == "-c"]
    server: dict[str, Any] = {}
    for item in overrides:
        server |= tomllib.loads(item).get("mcp_servers", {}).get("conveyor", {})
    assert server["default_tools_approval_mode"] == "approve"
    assert server["env"] == {"CONVEYOR_ISSUE": "3"}
    assert reader.stdin_text == "task"
    assert reader.env["CODEX_HOME"] == "/sessions/k/codex-home"


def test_opencode_readers_may_not_edit_or_run_commands() -> None:
    """The per-session config denies edit and bash to readers and names our MCP server."""
    launch = OpencodeBackend().launch(spec(SessionRole.READER), "m", "opencode", MCP)
    config = json.loads(launch.files[Path(launch.env["OPENCODE_CONFIG"])])
    assert config["permission"]["edit"] == "deny"
    assert config["permission"]["bash"] == "deny"
    assert config["mcp"]["conveyor"]["command"][0] == "/venv/bin/conveyor"


def test_opencode_sessions_never_download_its_plugin_package() -> None:
    """npm is kept offline, so a fresh session HOME costs no registry install."""
    launch = OpencodeBackend().launch(spec(SessionRole.WRITER), "m", "opencode", MCP)
    assert launch.env["npm_config_offline"] == "true"


def test_backend_settings_merge_into_the_opencode_config() -> None:
    """A provider override lands in the config without dropping our own keys."""
    settings = {"provider": {"anthropic": {"options": {"baseURL": "http://127.0.0.1:1/v1"}}}}
    launch = OpencodeBackend().launch(
        spec(SessionRole.WRITER, backend_settings=settings), "m", "opencode", MCP
    )
    config = json.loads(launch.files[Path(launch.env["OPENCODE_CONFIG"])])
    assert config["provider"]["anthropic"]["options"]["baseURL"] == "http://127.0.0.1:1/v1"
    assert "conveyor" in config["mcp"]


toml_values = st.recursive(
    st.booleans() | st.integers(-(2**62), 2**62) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(min_size=1, max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)


@given(toml_values)
@example({"0\n": False})  # a key ending in a newline once passed as a bare key
def test_codex_overrides_are_valid_toml_that_reads_back_the_same(value: object) -> None:
    """Whatever a setting holds, `-c key=<value>` parses back to it."""
    assert tomllib.loads(f"k = {toml_value(value)}")["k"] == value


def test_scripted_is_the_claude_backend_with_the_scripted_agent() -> None:
    """`agent = "scripted"` resolves to claude, the scripted executable and its scenario."""
    backend, executable, scenario = resolve_choice(AgentChoice(agent="scripted", scenario="s.toml"))
    assert backend == "claude"
    assert executable is not None
    assert executable.endswith("conveyor-scripted-agent")
    assert scenario == Path("s.toml")


def test_each_cli_gets_the_role_s_effort_and_claude_its_turn_cap() -> None:
    """claude `--max-turns` and `--effort`, codex `model_reasoning_effort`, opencode
    `--variant`; with neither set, none of them is passed."""
    capped = spec(SessionRole.WRITER, max_turns=40, effort="high")
    claude = ClaudeBackend().launch(capped, "m", "claude", MCP).argv
    assert (option(claude, "--max-turns"), option(claude, "--effort")) == ("40", "high")
    codex = CodexBackend().launch(capped, "m", "codex", MCP).argv
    assert 'model_reasoning_effort="high"' in codex
    opencode = OpencodeBackend().launch(capped, "m", "opencode", MCP).argv
    assert option(opencode, "--variant") == "high"
    plain = spec(SessionRole.WRITER)
    for backend in (ClaudeBackend(), CodexBackend(), OpencodeBackend()):
        argv = " ".join(backend.launch(plain, "m", "x", MCP).argv)
        assert "--max-turns" not in argv
        assert "effort" not in argv
        assert "--variant" not in argv
