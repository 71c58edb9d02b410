"""What a scripted turn does: files, diffs, commands, commits, replies through MCP, pauses."""

from __future__ import annotations

import json
import os
import subprocess
import time

from conveyor.agents.scripted.mcp_client import McpClient, McpError, connect_from_config

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

COMMAND_TIMEOUT = 600.0


class Workspace:
    """Where actions happen (folders as text), and the MCP connection once one is needed."""

    def __init__(
        self, cwd: str, env: dict[str, str], session_dir: str | None, mcp_config: str | None
    ) -> None:
        self.cwd = cwd
        self.env = env
        self.session_dir = session_dir
        self.mcp_config = mcp_config
        self.client: McpClient | None = None
        self.accepted = False
        self.log: list[str] = []

    def mcp(self) -> McpClient:
        """The MCP connection, started on first use."""
        if self.client is None:
            if self.mcp_config is None:
                msg = "no --mcp-config was given"
                raise McpError(msg)
            self.client = connect_from_config(self.mcp_config, self.env, self.cwd)
        return self.client

    def close(self) -> None:
        """Stop the MCP server, if one was started."""
        if self.client is not None:
            self.client.close()
            self.client = None


def tool_name(action: Mapping[str, Any]) -> str:
    """The claude tool a scripted action poses as in the stream."""
    names = {
        "write": "Write",
        "apply": "Bash",
        "run": "Bash",
        "commit": "Bash",
        "commit_tool": "mcp__conveyor__commit",
        "reply": "mcp__conveyor__submit_reply",
        "handoff": "Write",
        "pause_until": "Bash",
    }
    return names.get(next(iter(action)), "Bash")


def tool_input(action: Mapping[str, Any]) -> dict[str, Any]:
    """The tool call's input in the stream: a reply or commit as sent, else the action."""
    name, arg = next(iter(action.items()))
    if name in ("reply", "commit_tool") and isinstance(arg, dict):
        return dict(arg)
    return {name: arg}


def _git(
    ws: Workspace, *args: str, stdin: str | None = None, cwd: str | None = None
) -> tuple[bool, str]:
    proc = subprocess.run(
        ["git", *args],
        cwd=cwd or ws.cwd,
        env=ws.env,
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
        timeout=COMMAND_TIMEOUT,
    )
    return proc.returncode != 0, (proc.stdout + proc.stderr).strip()


def perform(ws: Workspace, action: Mapping[str, Any]) -> tuple[bool, str]:
    """Run one action; returns (is_error, output) as the tool result would carry them."""
    name, arg = next(iter(action.items()))
    if name == "write":
        target = os.path.join(ws.cwd, str(arg["path"]))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w") as file:
            file.write(str(arg.get("content", "")))
        return False, f"wrote {arg['path']}"
    if name == "apply":
        return _git(ws, "apply", "--whitespace=nowarn", "-", stdin=str(arg))
    if name == "run":
        proc = subprocess.run(
            ["/bin/sh", "-c", str(arg)],
            cwd=ws.cwd,
            env=ws.env,
            capture_output=True,
            text=True,
            check=False,
            timeout=COMMAND_TIMEOUT,
        )
        return proc.returncode != 0, (proc.stdout + proc.stderr).strip()
    if name == "commit":
        spec = arg if isinstance(arg, dict) else {"message": str(arg)}
        paths = [str(p) for p in spec.get("paths", [])]
        # `dir`: commit in that folder's repository (the wiki checkout, `wiki`).
        where = os.path.join(ws.cwd, str(spec["dir"])) if spec.get("dir") else ws.cwd
        add = ("add", "--", *paths) if paths else ("add", "-A")
        failed, out = _git(ws, *add, cwd=where)
        if failed:
            return True, out
        return _git(ws, "commit", "-q", "-m", str(spec["message"]), cwd=where)
    if name == "handoff":
        if ws.session_dir is None:
            return True, "no CONVEYOR_SESSION_DIR to write handoff.md into"
        with open(os.path.join(ws.session_dir, "handoff.md"), "w") as file:
            file.write(str(arg) + "\n")
        return False, "wrote handoff.md"
    if name == "pause_until":
        target = os.path.join(ws.cwd, str(arg))  # an absolute path stays as it is
        while not os.path.exists(target):
            time.sleep(0.05)
        return False, f"{arg} exists"
    return _mcp_action(ws, name, arg)


def _mcp_action(ws: Workspace, name: str, arg: Any) -> tuple[bool, str]:
    tool = "submit_reply" if name == "reply" else "commit"
    try:
        failed, text = ws.mcp().call_tool(tool, dict(arg))
    except McpError as exc:
        return True, str(exc)
    if tool == "submit_reply" and not failed:
        ws.accepted = True
    return failed, text


def record_env(session_dir: str | None, env: Mapping[str, str]) -> None:
    """Write the names (never the values) of the variables the agent received."""
    if session_dir is not None and os.path.isdir(session_dir):
        with open(os.path.join(session_dir, "agent-env.json"), "w") as file:
            file.write(json.dumps(sorted(env)) + "\n")
