"""The `claude` backend: stream-json in and out, so a live session can be steered."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from conveyor.agents.backends.base import Launch, McpCommand, StreamState, decode, is_writer, num
from conveyor.core.backends import FACTS, BackendName
from conveyor.core.config import AgentChoice
from conveyor.core.session import SessionSpec, Usage
from conveyor.core.transcript import Entry
from conveyor.core.transcript_read import args_of, cost_text, obj, text_of

SERVER = "conveyor"
BASE_URL_VAR = FACTS["claude"].base_url_var or "ANTHROPIC_BASE_URL"
MCP_START_MS = "120000"  # how long claude waits for the MCP server to start (`MCP_TIMEOUT`)
READER_TOOLS = (
    "Read",
    "Grep",
    "Glob",
    "LS",
    "Bash(git diff:*)",
    "Bash(git log:*)",
    "Bash(git show:*)",
    "Bash(git status:*)",
    f"mcp__{SERVER}__submit_reply",
)
WRITER_TOOLS = (
    "Read",
    "Grep",
    "Glob",
    "LS",
    "Edit",
    "MultiEdit",
    "Write",
    "NotebookEdit",
    "Bash",
    "TodoWrite",
    f"mcp__{SERVER}__submit_reply",
    f"mcp__{SERVER}__commit",
)


def user_message(text: str) -> str:
    """One stream-json user message (the task, or a steer)."""
    message = {"role": "user", "content": [{"type": "text", "text": text}]}
    return json.dumps({"type": "user", "message": message}) + "\n"


MAX_TURNS_END = "error_max_turns"  # the `result` subtype of a session cut by `--max-turns`


class ClaudeBackend:
    """`claude -p --output-format stream-json --verbose --input-format stream-json`."""

    name: BackendName = "claude"
    steerable = True
    resumable = False

    def launch(self, spec: SessionSpec, model: str, executable: str, mcp: McpCommand) -> Launch:
        """Argv with the MCP config file, permissions by role; the task goes on stdin."""
        config_path = spec.session_dir / "mcp.json"
        server = {"command": mcp.command, "args": list(mcp.args), "env": mcp.env}
        config = json.dumps({"mcpServers": {SERVER: server}}, indent=2)
        tools = WRITER_TOOLS if is_writer(spec) else READER_TOOLS
        argv = [
            executable,
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",
            "--input-format",
            "stream-json",
            "--model",
            model,
            "--append-system-prompt",
            spec.system_prompt,
            "--mcp-config",
            str(config_path),
            "--strict-mcp-config",
            "--permission-mode",
            "dontAsk",
            "--allowedTools",
            ",".join(tools),
            # Settings from the session's own HOME only: a checkout's `.claude/settings.json`
            # (hooks, permissions, env) is an agent's to write, never the session's rules.
            "--setting-sources",
            "user",
        ]
        if spec.max_turns is not None:
            argv += ["--max-turns", str(spec.max_turns)]
        if spec.effort is not None:
            argv += ["--effort", spec.effort]
        argv += list(spec.extra_args)
        # Claude gives an MCP server 30 s to start by default; on a loaded machine the relay
        # and the job's endpoint can take longer, and a session without its tools is lost.
        # The checkout's CLAUDE.md files are an agent's to rewrite: the session reads the
        # repository's instructions from the base branch instead (job/instructions.py).
        env = {"MCP_TIMEOUT": MCP_START_MS, "CLAUDE_CODE_DISABLE_CLAUDE_MDS": "1"}
        if spec.base_url:
            env[BASE_URL_VAR] = spec.base_url.rstrip("/")
        return Launch(
            argv=argv,
            stdin_text=user_message(spec.task),
            keep_stdin_open=True,
            files={config_path: config},
            env=env,
        )

    def parser(self) -> ClaudeParser:
        """A fresh stream parser."""
        return ClaudeParser()

    def steer_line(self, text: str) -> str:
        """A user message sent while the session runs."""
        return user_message(text)

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
        """claude is steered live; it is never resumed."""
        del spec, model, executable, mcp, session_id, text
        return None

    def transcript(self, event: dict[str, Any]) -> list[Entry]:
        """Assistant text, thinking and tool calls; tool results; the result's cost."""
        kind = event.get("type")
        blocks = obj(event.get("message")).get("content")
        out: list[Entry] = []
        for block in blocks if isinstance(blocks, list) else []:
            part = obj(block)
            if kind == "assistant" and part.get("type") == "text":
                out.append(Entry("text", str(part.get("text", ""))))
            elif kind == "assistant" and part.get("type") == "thinking":
                out.append(Entry("thinking", str(part.get("thinking", ""))))
            elif kind == "assistant" and part.get("type") == "tool_use":
                out.append(Entry("call", args_of(part.get("input")), name=str(part.get("name"))))
            elif kind == "user" and part.get("type") == "tool_result":
                failed = part.get("is_error") is True
                out.append(Entry("result", text_of(part.get("content", "")), failed=failed))
        if kind == "result":
            if event.get("is_error") is True:
                out.append(Entry("error", text_of(event.get("result", event.get("subtype")))))
            out.append(Entry("turn", cost_text(event.get("total_cost_usd"))))
        return out

    def signed_in(
        self, code: int, output: str, choice: AgentChoice, env: Mapping[str, str]
    ) -> tuple[bool, str]:
        """`claude auth status --json` says `loggedIn`."""
        del choice, env
        try:
            said = json.loads(output)
        except ValueError:
            said = {}
        if code == 0 and isinstance(said, dict) and said.get("loggedIn") is True:
            return True, f"signed in ({said.get('authMethod', 'unknown')})"
        return False, "not signed in"


def _usage(raw: dict[str, Any]) -> Usage:
    return Usage(
        input=num(raw.get("input_tokens")),
        output=num(raw.get("output_tokens")),
        cache_read=num(raw.get("cache_read_input_tokens")),
        cache_write=num(raw.get("cache_creation_input_tokens")),
    )


@dataclass
class ClaudeParser:
    """Parses claude's stream-json; repeated events of one message count as one turn."""

    state: StreamState = field(default_factory=StreamState)
    _messages: set[str] = field(default_factory=set)
    _tools: dict[str, str] = field(default_factory=dict)

    def feed(self, line: str) -> int | None:
        """Take one line; return the context of a new assistant message."""
        event = decode(line, self.state)
        if event is None:
            return None
        kind = event.get("type")
        if isinstance(event.get("session_id"), str):
            self.state.session_id = event["session_id"]
        if kind == "assistant":
            return self._assistant(event.get("message") or {})
        if kind == "user":
            self._tool_results(event.get("message") or {})
        elif kind == "rate_limit_event":
            info = event.get("rate_limit_info") or {}
            if info.get("status") == "rejected":
                self.state.rate_limited = True
                reset = info.get("resetsAt")
                self.state.rate_limit_reset = float(reset) if isinstance(reset, int) else None
        elif kind == "result":
            self._result(event)
        return None

    def _assistant(self, message: dict[str, Any]) -> int | None:
        for block in message.get("content") or []:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                ident = str(block.get("id"))
                if ident not in self._tools:
                    self._tools[ident] = str(block.get("name"))
                    self.state.call(str(block.get("name")), block.get("input"))
        ident = str(message.get("id"))
        if ident in self._messages:
            return None
        self._messages.add(ident)
        usage = _usage(message.get("usage") or {})
        self.state.usage = self.state.usage + usage
        return self.state.turn(usage)

    def _tool_results(self, message: dict[str, Any]) -> None:
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("is_error") is True:
                name = self._tools.get(str(block.get("tool_use_id")), "tool")
                self.state.fail_tool(name, block.get("content"))

    def _result(self, event: dict[str, Any]) -> None:
        self.state.ended = True
        if isinstance(event.get("usage"), dict):
            self.state.usage = _usage(event["usage"])
        cost = event.get("total_cost_usd")
        if isinstance(cost, int | float):
            self.state.cost_usd = float(cost)
        text = event.get("result")
        self.state.final_text = text if isinstance(text, str) else None
        if event.get("stop_reason") == "refusal":
            self.state.refusal = text if isinstance(text, str) and text else "refused"
            return  # the model's answer, not the API failing
        if event.get("subtype") == MAX_TURNS_END:
            # The session used the turns `--max-turns` gave it ([sessions]): the model's
            # doing, never the provider's trouble (an API error would pause the agent).
            turns = event.get("num_turns")
            self.state.final_text = f"it used all its turns ({turns}, the role's max_turns)"
            return
        if event.get("is_error") is True or event.get("subtype") not in ("success", None):
            status = event.get("api_error_status")
            detail = text if isinstance(text, str) and text else str(event.get("subtype"))
            self.state.note_error(f"{detail} (API status {status})" if status else detail)
