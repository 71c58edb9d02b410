"""The `codex` backend: `codex exec --json`, the prompt on stdin, MCP servers by `-c`."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from conveyor.agents.backends.base import Launch, McpCommand, StreamState, decode, is_writer, num
from conveyor.core.backends import FACTS, BackendName
from conveyor.core.config import AgentChoice
from conveyor.core.session import SessionSpec, Usage
from conveyor.core.transcript import Entry
from conveyor.core.transcript_read import args_of, obj, text_of

SERVER = "conveyor"
ROW = FACTS["codex"]
PROVIDER = "conveyor-provider"
TRANSIENT = "Reconnecting..."
BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def toml_value(value: object) -> str:
    """A value as inline TOML, the syntax of codex's `-c key=value`."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        # TOML basic strings: JSON escaping, minus \uD8xx pairs, plus DEL.
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        pairs = []
        for key, item in value.items():
            name = key if BARE_KEY.fullmatch(str(key)) else toml_value(str(key))
            pairs.append(f"{name} = {toml_value(item)}")
        return "{" + ", ".join(pairs) + "}"
    msg = f"cannot write {type(value).__name__} as TOML"
    raise TypeError(msg)


def provider_settings(base_url: str | None) -> dict[str, object]:
    """A Responses provider at `base_url` (its key in `OPENAI_API_KEY`), or nothing."""
    if not base_url:
        return {}
    provider = {
        "name": PROVIDER,
        "base_url": f"{base_url.rstrip('/')}/v1",
        "wire_api": "responses",
        "env_key": "OPENAI_API_KEY",
    }
    return {"model_provider": PROVIDER, f"model_providers.{PROVIDER}": provider}


def git_root(spec: SessionSpec) -> dict[str, object]:
    """A writer may use git in its checkout, as it may with the other CLIs: codex's sandbox
    keeps `.git` read-only unless it is a writable root of its own (a resolver must
    `git add` and `git rebase --continue`)."""
    git_dir = spec.cwd / ".git"
    if not is_writer(spec) or not git_dir.is_dir() or spec.sandbox.mode == "bwrap":
        return {}
    return {"sandbox_workspace_write.writable_roots": [str(git_dir)]}


def codex_sandbox(spec: SessionSpec) -> str:
    """codex's own sandbox by role, unless Conveyor's box already holds the session: codex
    builds its sandbox with bubblewrap, which cannot nest in the box (no user namespace
    inside), and the box enforces what it would (a reader's checkout is read-only there)."""
    if spec.sandbox.mode == "bwrap":
        return "danger-full-access"
    return "workspace-write" if is_writer(spec) else "read-only"


class CodexBackend:
    """`codex exec --json`, sandboxed read-only or workspace-write by role."""

    name: BackendName = "codex"
    steerable = False
    resumable = True

    def launch(self, spec: SessionSpec, model: str, executable: str, mcp: McpCommand) -> Launch:
        """Argv with config overrides; the task goes on stdin (`-`), then stdin closes."""
        argv = [
            executable,
            "exec",
            "--json",
            "--skip-git-repo-check",
            "--model",
            model,
            "--sandbox",
            codex_sandbox(spec),
            "--cd",
            str(spec.cwd),
            *self._overrides(spec, mcp),
            *spec.extra_args,
            "-",
        ]
        return Launch(argv=argv, stdin_text=spec.task, env=self._env(spec))

    def resume(
        self,
        spec: SessionSpec,
        model: str,
        executable: str,
        mcp: McpCommand,
        *,
        session_id: str,
        text: str,
    ) -> Launch | None:
        """`codex exec resume ID -`: the same session, `text` as its next message on stdin."""
        sandbox = codex_sandbox(spec)
        argv = [
            executable,
            "exec",
            "resume",
            "--json",
            "--skip-git-repo-check",
            "--model",
            model,
            "-c",
            f"sandbox_mode={toml_value(sandbox)}",
            *self._overrides(spec, mcp),
            session_id,
            "-",
        ]
        return Launch(argv=argv, stdin_text=text, env=self._env(spec))

    def _env(self, spec: SessionSpec) -> dict[str, str]:
        """`CODEX_HOME`: the session's own, holding the copied `auth.json` (`prepare_home`)."""
        return {ROW.state_var or "CODEX_HOME": str(spec.session_dir / ROW.state_dir)}

    def transcript(self, event: dict[str, Any]) -> list[Entry]:
        """Completed items (messages, reasoning, commands, MCP calls), errors, turn ends."""
        kind = event.get("type")
        item = obj(event.get("item"))
        if kind in {"turn.failed", "error"}:
            detail = obj(event.get("error")).get("message", event.get("message"))
            return [Entry("error", text_of(detail))]
        if kind == "turn.completed":
            return [Entry("turn", "")]
        if kind != "item.completed":
            return []
        return _item_entries(item)

    def signed_in(
        self, code: int, output: str, choice: AgentChoice, env: Mapping[str, str]
    ) -> tuple[bool, str]:
        """`codex login status` exits 0; an API key for a configured base URL also works."""
        last = output.splitlines()[-1] if output else ""
        if code == 0:
            return True, last or "logged in"
        if choice.base_url and env.get("OPENAI_API_KEY"):
            return True, f"OPENAI_API_KEY for {choice.base_url}"
        return False, last or "not logged in"

    def _overrides(self, spec: SessionSpec, mcp: McpCommand) -> list[str]:
        """The `-c key=value` overrides: instructions, the MCP server, the provider."""
        overrides: dict[str, object] = {
            "developer_instructions": spec.system_prompt,
            f"mcp_servers.{SERVER}.command": mcp.command,
            f"mcp_servers.{SERVER}.args": list(mcp.args),
            f"mcp_servers.{SERVER}.env": mcp.env,
            f"mcp_servers.{SERVER}.default_tools_approval_mode": "approve",
            # A loaded machine can take longer than codex's default 10 s to start a server.
            f"mcp_servers.{SERVER}.startup_timeout_sec": 60,
            **provider_settings(spec.base_url),
            **git_root(spec),
            # codex has no turn cap; its effort is a config key ([sessions], SessionSpec.effort).
            **({"model_reasoning_effort": spec.effort} if spec.effort else {}),
            # No AGENTS.md from the checkout (an agent's to rewrite): the session reads the
            # repository's instructions from the base branch instead (job/instructions.py).
            "project_doc_max_bytes": 0,
            **spec.backend_settings,
        }
        argv: list[str] = []
        for key, value in overrides.items():
            argv += ["-c", f"{key}={toml_value(value)}"]
        return argv

    def parser(self) -> CodexParser:
        """A fresh stream parser."""
        return CodexParser()

    def steer_line(self, text: str) -> str:
        """Codex exec cannot be steered; never called."""
        raise NotImplementedError(text)


@dataclass
class CodexParser:
    """Parses `codex exec --json`: items, then `turn.completed` with token usage (no cost)."""

    state: StreamState = field(default_factory=StreamState)

    def feed(self, line: str) -> int | None:
        """Take one line; return the context of a completed turn."""
        event = decode(line, self.state)
        if event is None:
            return None
        kind = event.get("type")
        if kind == "thread.started" and isinstance(event.get("thread_id"), str):
            self.state.session_id = event["thread_id"]
        elif kind == "item.completed":
            self._item(event.get("item") or {})
        elif kind == "turn.completed":
            raw = event.get("usage") or {}
            cached = num(raw.get("cached_input_tokens"))
            usage = Usage(
                input=max(num(raw.get("input_tokens")) - cached, 0),
                output=num(raw.get("output_tokens")),
                cache_read=cached,
                cache_write=num(raw.get("cache_write_input_tokens")),
            )
            self.state.usage = self.state.usage + usage
            self.state.ended = True
            return self.state.turn(usage)
        elif kind in ("turn.failed", "error"):
            error = event.get("error")
            message = error.get("message") if isinstance(error, dict) else event.get("message")
            if kind == "error" and str(message).startswith(TRANSIENT):
                return None  # codex retries by itself; only how the turn ends counts
            self.state.note_error(str(message or kind))
            self.state.ended = kind == "turn.failed" or self.state.ended
        return None

    def _item(self, item: dict[str, Any]) -> None:
        kind = item.get("type")
        if kind == "agent_message" and isinstance(item.get("text"), str):
            self.state.final_text = item["text"]
        elif kind == "command_execution":
            self.state.call("shell", item.get("command"))
            code = item.get("exit_code")
            if item.get("status") == "failed" or (isinstance(code, int) and code != 0):
                self.state.fail_tool("shell", f"exit {code}: {item.get('command')}")
        elif kind == "mcp_tool_call":
            self.state.call(f"{item.get('server')}.{item.get('tool')}", item.get("arguments"))
            if item.get("error") or item.get("status") == "failed":
                self.state.fail_tool(f"{item.get('server')}.{item.get('tool')}", item.get("error"))


def _item_entries(item: dict[str, Any]) -> list[Entry]:
    """A completed item's transcript entries."""
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
        result = obj(item.get("result")).get("content", "") if error is None else error
        return [
            Entry("call", args_of(item.get("arguments")), name=name),
            Entry("result", text_of(result), failed=error is not None),
        ]
    return []
