"""The fake model's script: which turn to play, chosen from the conversation, never the clock."""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class WriteFile:
    """Write `content` to the absolute `path` with the CLI's own write tool (or its shell)."""

    path: str
    content: str


@dataclass(frozen=True)
class CallTool:
    """Call the listed tool whose name ends with `suffix` (an MCP tool such as `submit_reply`)."""

    suffix: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class SayText:
    """Answer with plain text, which ends the CLI's turn."""

    text: str


Step = WriteFile | CallTool | SayText


@dataclass(frozen=True)
class Usage:
    """Token counts reported for every answer."""

    input_tokens: int = 120
    output_tokens: int = 12
    cache_read_tokens: int = 30
    cache_write_tokens: int = 10


@dataclass(frozen=True)
class ToolCall:
    """A decided tool call: the tool's name as the CLI listed it, and its arguments.

    A `wait` call (a short shell sleep) is played while an MCP tool the script
    needs is not listed yet; its result does not advance the script.
    """

    name: str
    arguments: dict[str, Any]
    wait: bool = False


@dataclass(frozen=True)
class Text:
    """A decided text answer."""

    text: str


@dataclass(frozen=True)
class Conversation:
    """What the fake model reads from a request: tools offered and tool results so far."""

    tool_names: list[str]
    step_results: int
    wait_results: int
    text: str = ""


WAIT_MARK = "wait"
MAX_WAITS = 80

Turn = ToolCall | Text


@dataclass(frozen=True)
class Script:
    """The steps played in order, one per request.

    A request that lists no tools (opencode's title request, claude's side queries)
    gets a short text, and any request past the last step gets `final_text`.
    """

    steps: tuple[Step, ...]
    final_text: str = "Done."
    untooled_text: str = "Fake session"
    usage: Usage = field(default_factory=Usage)


# Write tools in order of preference: name → how its arguments are spelled.
_WRITE_TOOLS = {"Write": ("file_path", "content"), "write": ("filePath", "content")}
# Shell tools: name → the argument holding the command, and whether it is an argv list.
_SHELL_TOOLS = {
    "Bash": ("command", False),
    "bash": ("command", False),
    "exec_command": ("cmd", False),
    "shell_command": ("command", False),
    "shell": ("command", True),
}


def decide_turn(script: Script, conversation: Conversation) -> Turn:
    """Return the turn to play: step N answers a request carrying N step results.

    A tool the CLI defers (claude names MCP tools in a reminder instead of listing
    them) is found by its name in the request's text. An MCP tool that is not
    there yet (codex lists MCP tools once their server is up) is waited for.
    """
    names = conversation.tool_names
    if not names:
        return Text(script.untooled_text)
    if conversation.step_results >= len(script.steps):
        return Text(script.final_text)
    match script.steps[conversation.step_results]:
        case SayText(text=text):
            return Text(text)
        case CallTool(suffix=suffix, arguments=arguments):
            for name in names:
                if name.endswith(suffix):
                    return ToolCall(name, arguments)
            pattern = rf"\b[A-Za-z0-9_-]*{re.escape(suffix)}\b"
            mentioned = re.search(pattern, conversation.text)
            if mentioned:
                return ToolCall(mentioned.group(0), arguments)
            waiting = _shell_turn("sleep 0.5", names, wait=True)
            if conversation.wait_results < MAX_WAITS and isinstance(waiting, ToolCall):
                return waiting
            return Text(f"fake model: no tool ending in {suffix!r} among {sorted(names)}")
        case WriteFile(path=path, content=content):
            return _write_turn(path, content, names)


def _write_turn(path: str, content: str, tool_names: list[str]) -> Turn:
    """Pick the CLI's write tool, or else its shell, to write `content` to `path`."""
    for name, (path_key, content_key) in _WRITE_TOOLS.items():
        if name in tool_names:
            return ToolCall(name, {path_key: path, content_key: content})
    command = f"printf %s {shlex.quote(content)} > {shlex.quote(path)}"
    return _shell_turn(command, tool_names, wait=False)


def _shell_turn(command: str, tool_names: list[str], *, wait: bool) -> Turn:
    """Run `command` with the CLI's shell tool."""
    for name, (key, as_argv) in _SHELL_TOOLS.items():
        if name in tool_names:
            value: object = ["bash", "-lc", command] if as_argv else command
            arguments: dict[str, Any] = {key: value}
            if name == "bash":
                arguments["description"] = "Run a command"
            return ToolCall(name, arguments, wait=wait)
    return Text(f"fake model: no shell tool among {sorted(tool_names)}")


def arguments_json(call: ToolCall) -> str:
    """Return the call's arguments as compact JSON, as models stream them."""
    return json.dumps(call.arguments, separators=(",", ":"))
