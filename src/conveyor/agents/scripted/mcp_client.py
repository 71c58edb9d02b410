"""A minimal MCP client over stdio (newline-delimited JSON-RPC), without the SDK, to start fast."""

from __future__ import annotations

import json
import os
import subprocess

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PROTOCOL_VERSION = "2025-06-18"


class McpError(Exception):
    """The server could not be started, or answered with a JSON-RPC error."""


class McpClient:
    """One connection to one stdio MCP server, started from an `mcpServers` entry."""

    def __init__(
        self, command: str, args: list[str], env: dict[str, str], cwd: str | os.PathLike[str]
    ) -> None:
        try:
            self._proc = subprocess.Popen(
                [command, *args],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env=env,
                cwd=cwd,
                text=True,
            )
        except OSError as exc:
            msg = f"cannot start MCP server {command!r}: {exc}"
            raise McpError(msg) from exc
        self._next_id = 0
        self._ready = False

    def _initialize(self) -> None:
        """The handshake, done on first use so the server's start overlaps the agent's work."""
        self._ready = True
        self._request(
            "initialize",
            {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "conveyor-scripted-agent", "version": "1"},
            },
        )
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _send(self, message: dict[str, Any]) -> None:
        assert self._proc.stdin is not None
        self._proc.stdin.write(json.dumps(message) + "\n")
        self._proc.stdin.flush()

    def _request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self._next_id += 1
        ident = self._next_id
        self._send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if not isinstance(message, dict) or message.get("id") != ident:
                continue
            if "error" in message:
                msg = f"{method}: {message['error']}"
                raise McpError(msg)
            result = message.get("result")
            return result if isinstance(result, dict) else {}
        msg = f"{method}: the MCP server exited without answering"
        raise McpError(msg)

    def call_tool(self, name: str, arguments: dict[str, Any]) -> tuple[bool, str]:
        """Call a tool; returns (is_error, text)."""
        if not self._ready:
            self._initialize()
        result = self._request("tools/call", {"name": name, "arguments": arguments})
        texts = [c.get("text", "") for c in result.get("content", []) if isinstance(c, dict)]
        return bool(result.get("isError")), "\n".join(texts)

    def list_tools(self) -> list[str]:
        """The names of the server's tools."""
        if not self._ready:
            self._initialize()
        result = self._request("tools/list", {})
        return [t.get("name", "") for t in result.get("tools", []) if isinstance(t, dict)]

    def close(self) -> None:
        """Close the server's stdin and wait for it to exit."""
        if self._proc.stdin is not None:
            self._proc.stdin.close()
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        if self._proc.stdout is not None:
            self._proc.stdout.close()


def connect_from_config(config: str, env: dict[str, str], cwd: str) -> McpClient:
    """Start the first server of a claude `--mcp-config` file (conveyor's own, by name)."""
    try:
        with open(config) as file:
            servers = json.load(file)["mcpServers"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        msg = f"unreadable MCP config {config}: {exc}"
        raise McpError(msg) from exc
    entry = servers.get("conveyor") or next(iter(servers.values()), None)
    if not isinstance(entry, dict) or "command" not in entry:
        msg = f"MCP config {config} names no server with a command"
        raise McpError(msg)
    merged = {**env, **{str(k): str(v) for k, v in entry.get("env", {}).items()}}
    return McpClient(str(entry["command"]), [str(a) for a in entry.get("args", [])], merged, cwd)
