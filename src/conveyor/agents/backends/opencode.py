"""The `opencode` backend: `opencode run --format json` with a per-session config file."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from conveyor.agents.backends.base import (
    Launch,
    McpCommand,
    StreamState,
    decode,
    is_writer,
    num,
    obj,
)
from conveyor.core.backends import FACTS, BackendName
from conveyor.core.config import AgentChoice
from conveyor.core.session import SessionSpec, Usage
from conveyor.core.transcript import Entry
from conveyor.core.transcript_read import args_of, cost_text, text_of

# opencode npm-installs `@opencode-ai/plugin` into $HOME/.config/opencode at start-up; every
# session has a fresh HOME, so that was a registry download (tens of seconds) per session.
# Our per-session config loads no plugins: keep npm to its (empty) cache, so it fails at once.
OFFLINE_NPM = {"npm_config_offline": "true"}
# No instructions or config from the checkout (an agent's to rewrite: its AGENTS.md,
# CLAUDE.md, opencode.json): the session reads the base branch's copies (job/instructions.py).
NO_PROJECT_FILES = {"OPENCODE_DISABLE_PROJECT_CONFIG": "1", "OPENCODE_DISABLE_CLAUDE_CODE": "1"}

SERVER = "conveyor"
ROW = FACTS["opencode"]
MAX_ARG_TASK = 100_000
REFUSED = "ContentFilterError"


def merge(base: dict[str, Any], extra: Mapping[str, object]) -> dict[str, Any]:
    """Deep-merge `extra` into a copy of `base`."""
    out = dict(base)
    for key, value in extra.items():
        current = out.get(key)
        if isinstance(current, dict) and isinstance(value, Mapping):
            out[key] = merge(current, value)
        else:
            out[key] = value
    return out


def outside_folders(spec: SessionSpec) -> dict[str, str]:
    """The folders outside the checkout a session reads: the issue's run folder (issue.md,
    spec.md, handoff.md) and the job's (diffs, the session folder); opencode refuses any
    other folder outside the project without asking, as `run` cannot ask."""
    folders = [spec.session_dir.parent.parent]
    if spec.issue_file is not None:
        folders.append(spec.issue_file.parent)
    return {"*": "deny", **{f"{folder}/*": "allow" for folder in folders}}


class OpencodeBackend:
    """`opencode run --format json`; instructions and the MCP server in `opencode.json`."""

    name: BackendName = "opencode"
    steerable = False
    resumable = True

    def launch(self, spec: SessionSpec, model: str, executable: str, mcp: McpCommand) -> Launch:
        """The config file (`OPENCODE_CONFIG`), and the task as the message."""
        instructions = spec.session_dir / "instructions.md"
        config_path = spec.session_dir / "opencode.json"
        permission: dict[str, Any] = (
            {"edit": "allow", "bash": "allow", "webfetch": "deny"}
            if is_writer(spec)
            else {"edit": "deny", "bash": "deny", "webfetch": "deny"}
        )
        permission["external_directory"] = outside_folders(spec)
        config: dict[str, Any] = {
            "$schema": "https://opencode.ai/config.json",
            "instructions": [str(instructions)],
            "permission": permission,
            # Conveyor commits the work itself: no undo snapshots of every step, and no
            # title for the session (a request to a small model each time, paid for).
            "snapshot": False,
            "agent": {"title": {"disable": True}},
            "mcp": {
                SERVER: {
                    "type": "local",
                    "command": [mcp.command, *mcp.args],
                    "environment": mcp.env,
                    "enabled": True,
                }
            },
        }
        if spec.base_url:
            provider = ROW.provider_of(model)
            options = {"options": {"baseURL": f"{spec.base_url.rstrip('/')}/v1"}}
            config = merge(config, {"provider": {provider: options}})
        config = merge(config, spec.backend_settings)
        files = {instructions: spec.system_prompt, config_path: json.dumps(config, indent=2)}
        task = spec.task
        if len(task) > MAX_ARG_TASK:
            task_file = spec.session_dir / "task.md"
            files[task_file] = task
            task = f"Your task is in the file {task_file}: read it in full, then do it."
        argv = [executable, "run", "--format", "json", "--model", model, *_variant(spec)]
        argv += [*spec.extra_args, task]
        env = {"OPENCODE_CONFIG": str(config_path), **OFFLINE_NPM, **NO_PROJECT_FILES}
        return Launch(argv=argv, stdin_text=None, files=files, env=env)

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
        """`opencode run --session ID`: the same session (its config file kept), `text` next."""
        del mcp  # the config file written at launch still names the server
        config_path = spec.session_dir / "opencode.json"
        argv = [executable, "run", "--format", "json", "--model", model, *_variant(spec)]
        argv += ["--session", session_id]
        env = {"OPENCODE_CONFIG": str(config_path), **OFFLINE_NPM, **NO_PROJECT_FILES}
        return Launch(argv=[*argv, *spec.extra_args, text], stdin_text=None, env=env)

    def parser(self) -> OpencodeParser:
        """A fresh stream parser."""
        return OpencodeParser()

    def transcript(self, event: dict[str, Any]) -> list[Entry]:
        """Text, reasoning, tool calls with their results, errors, each step's cost."""
        kind = event.get("type")
        part = obj(event.get("part"))
        if kind in {"text", "reasoning"}:
            return [Entry("text" if kind == "text" else "thinking", str(part.get("text", "")))]
        if kind == "error":
            error = event.get("error")
            return [Entry("error", text_of(obj(error).get("data", error)))]
        if kind == "step_finish":
            return [Entry("turn", cost_text(part.get("cost")))]
        if kind != "tool_use":
            return []
        state = obj(part.get("state"))
        failed = state.get("status") == "error"
        output = state.get("error") if failed else state.get("output", "")
        return [
            Entry("call", args_of(state.get("input")), name=str(part.get("tool"))),
            Entry("result", text_of(output), failed=failed),
        ]

    def signed_in(
        self, code: int, output: str, choice: AgentChoice, env: Mapping[str, str]
    ) -> tuple[bool, str]:
        """`opencode auth list` lists the provider the configured model names."""
        del code, env
        provider = ROW.provider_of(choice.model).lower()
        if any(provider in line for line in output.lower().splitlines()):
            return True, f"{provider} credentials found"
        return False, f"no credentials for {provider}"

    def steer_line(self, text: str) -> str:
        """opencode run cannot be steered; never called."""
        raise NotImplementedError(text)


@dataclass
class OpencodeParser:
    """Parses opencode's JSON events: one `step_finish` per model call, with tokens and cost."""

    state: StreamState = field(default_factory=StreamState)

    def feed(self, line: str) -> int | None:
        """Take one line; return the context of a finished step."""
        event = decode(line, self.state)
        if event is None:
            return None
        if isinstance(event.get("sessionID"), str):
            self.state.session_id = event["sessionID"]
        part = obj(event.get("part"))
        kind = event.get("type")
        if kind == "text" and isinstance(part.get("text"), str):
            self.state.final_text = part["text"]
        elif kind == "tool_use":
            self._tool(part)
        elif kind == "step_finish":
            return self._step(part)
        elif kind == "error":
            error = event.get("error")
            if obj(error).get("name") == REFUSED:
                self.state.refusal = self.state.final_text or "blocked by the content filter"
                return None
            data = obj(obj(error).get("data"))
            text = str(data.get("message") or obj(error).get("name") or error or "error")
            status = data.get("statusCode")
            self.state.note_error(f"{text} (API status {status})" if status else text)
        return None

    def _tool(self, part: dict[str, Any]) -> None:
        status = obj(part.get("state"))
        self.state.call(str(part.get("tool")), status.get("input"))
        if status.get("status") == "error":
            self.state.fail_tool(str(part.get("tool")), status.get("error"))

    def _step(self, part: dict[str, Any]) -> int:
        tokens = obj(part.get("tokens"))
        cache = obj(tokens.get("cache"))
        usage = Usage(
            input=num(tokens.get("input")),
            output=num(tokens.get("output")) + num(tokens.get("reasoning")),
            cache_read=num(cache.get("read")),
            cache_write=num(cache.get("write")),
        )
        self.state.usage = self.state.usage + usage
        cost = part.get("cost")
        if isinstance(cost, int | float):
            self.state.cost_usd = (self.state.cost_usd or 0.0) + float(cost)
        self.state.ended = part.get("reason") != "tool-calls"
        if part.get("reason") == "content-filter":
            self.state.refusal = self.state.final_text or "blocked by the content filter"
        return self.state.turn(usage)


def _variant(spec: SessionSpec) -> list[str]:
    """opencode's reasoning effort (`--variant`); it has no turn cap."""
    return ["--variant", spec.effort] if spec.effort else []
