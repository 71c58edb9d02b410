"""The fake model's script: which turn to play, chosen from the conversation, never the clock."""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from typing import Any

from conveyor.testing.fake_model.steps import (
    CallTool,
    Hangup,
    ReadFile,
    Refuse,
    Reject,
    RunCommand,
    SayText,
    Step,
    WriteFile,
)


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
    needs is not listed yet; a `look` call reads the issue file before a playbook
    knows the issue's tag. Neither advances the script.
    """

    name: str
    arguments: dict[str, Any]
    wait: bool = False
    look: bool = False

    @property
    def mark(self) -> str:
        """What the call's id carries, so its result is told apart when it comes back."""
        return WAIT_MARK if self.wait else LOOK_MARK if self.look else "fake"


@dataclass(frozen=True)
class Text:
    """A decided text answer; `refusal` sends it as the API's refusal."""

    text: str
    refusal: bool = False


@dataclass(frozen=True)
class Conversation:
    """What the fake model reads from a request: tools offered and tool results so far.

    `users` holds every user message after the first: the step results that came
    before it, and its text (a steer, or a resumed session's new prompt).
    """

    tool_names: list[str]
    step_results: int
    wait_results: int
    text: str = ""
    users: tuple[tuple[int, str], ...] = ()
    look_results: int = 0


Item = tuple[str, str]
"""One thing a request's conversation holds, in order: ("result", call id) or ("user", text)."""


def conversation_of(names: list[str], items: list[Item], text: str) -> Conversation:
    """Count the step, wait and look results, and note each user message after the first."""
    steps = waits = looks = 0
    users: list[tuple[int, str]] = []
    seen_user = False
    for kind, value in items:
        if kind == "user":
            if seen_user:
                users.append((steps, value))
            seen_user = True
        elif WAIT_MARK in value:
            waits += 1
        elif LOOK_MARK in value:
            looks += 1
        else:
            steps += 1
    return Conversation(names, steps, waits, text, tuple(users), looks)


WAIT_MARK = "wait"
LOOK_MARK = "look"
MAX_WAITS = 80
TEST_SLOT = "{test}"
TEST_COMMAND = re.compile(r"- test: `([^`]+)`")

Answer = ToolCall | Text
"""What a request is answered with when it succeeds."""
Turn = Answer | Reject | Hangup


@dataclass(frozen=True)
class Branch:
    """Once a later user message holds `marker` (a steer), play `script` from its start."""

    marker: str
    script: Script


@dataclass(frozen=True)
class Script:
    """The steps played in order, one per request.

    A request that lists no tools (opencode's title request, claude's side queries)
    gets a short text, and any request past the last step gets `final_text` (or,
    with `repeat_last`, the last step again: an endless tool loop). A failing step
    (`Reject`, `Hangup`) answers every request while it is the current step.
    """

    steps: tuple[Step, ...]
    final_text: str = "Done."
    untooled_text: str = "Fake session"
    usage: Usage = field(default_factory=Usage)
    repeat_last: bool = False
    branches: tuple[Branch, ...] = ()

    def play(self, conversation: Conversation) -> tuple[Turn, Usage]:
        """The turn to play for this conversation and the usage to report with it."""
        return play(self, conversation)


# Write tools in order of preference: name → how its arguments are spelled.
_WRITE_TOOLS = {"Write": ("file_path", "content"), "write": ("filePath", "content")}
_READ_TOOLS = {"Read": "file_path", "read": "filePath"}
# Shell tools: name → the argument holding the command, and whether it is an argv list.
_SHELL_TOOLS = {
    "Bash": ("command", False),
    "bash": ("command", False),
    "exec_command": ("cmd", False),
    "shell_command": ("command", False),
    "shell": ("command", True),
}


def active_script(script: Script, conversation: Conversation) -> tuple[Script, int]:
    """The script in play and how many step results belong to it (a branch counts its own)."""
    users = conversation.users
    for index in range(len(users) - 1, -1, -1):
        before, text = users[index]
        for branch in script.branches:
            if branch.marker in text:
                later = tuple((n - before, t) for n, t in users[index + 1 :])
                rest = Conversation(
                    conversation.tool_names,
                    conversation.step_results - before,
                    conversation.wait_results,
                    conversation.text,
                    later,
                )
                return active_script(branch.script, rest)
    return script, conversation.step_results


def play(script: Script, conversation: Conversation) -> tuple[Turn, Usage]:
    """The turn to play and the usage to report with it."""
    chosen, done = active_script(script, conversation)
    return decide_turn(chosen, _with_results(conversation, done)), chosen.usage


def _with_results(conversation: Conversation, done: int) -> Conversation:
    if done == conversation.step_results:
        return conversation
    return Conversation(conversation.tool_names, done, conversation.wait_results, conversation.text)


def decide_turn(script: Script, conversation: Conversation) -> Turn:
    """Return the turn to play: step N answers a request carrying N step results.

    A tool the CLI defers (claude names MCP tools in a reminder instead of listing
    them) is found by its name in the request's text. An MCP tool that is not
    there yet (codex lists MCP tools once their server is up) is waited for.
    """
    step = _step_at(script, conversation.step_results)
    if isinstance(step, Reject | Hangup):
        return step
    if not conversation.tool_names:
        return Text(script.untooled_text)
    if step is None:
        return Text(script.final_text)
    return _step_turn(step, conversation)


def _step_at(script: Script, index: int) -> Step | None:
    """Step `index` (past the end: none, or the last one for a script that repeats it)."""
    if script.repeat_last and script.steps:
        index = min(index, len(script.steps) - 1)
    return script.steps[index] if index < len(script.steps) else None


def _step_turn(step: Step, conversation: Conversation) -> Turn:
    """The turn that plays one step with the tools the CLI offers."""
    names = conversation.tool_names
    match step:
        case SayText(text=text):
            return Text(text)
        case Refuse(text=text):
            return Text(text, refusal=True)
        case CallTool(suffix=suffix, arguments=arguments):
            return _mcp_turn(suffix, arguments, conversation)
        case WriteFile(path=path, content=content):
            return _write_turn(path, content, names)
        case ReadFile(path=path):
            return read_turn(path, names)
        case RunCommand(command=command):
            return _shell_turn(_with_test(command, conversation.text), names, wait=False)
        case Reject() | Hangup():
            return step


def _with_test(command: str, text: str) -> str:
    """`{test}` in a command is the test command the session's prompt names."""
    if TEST_SLOT not in command:
        return command
    named = TEST_COMMAND.search(text)
    return command.replace(TEST_SLOT, named.group(1) if named else "true")


def _mcp_turn(suffix: str, arguments: dict[str, Any], conversation: Conversation) -> Turn:
    """Call the listed (or mentioned) tool ending in `suffix`, waiting for it to appear."""
    names = conversation.tool_names
    for name in names:
        if name.endswith(suffix):
            return ToolCall(name, arguments)
    # Only a server-qualified name (`mcp__conveyor__submit_reply`): the prompt's own bare
    # mention of the tool is no sign that the CLI offers it (codex lists its MCP tools only
    # once their server has started, which under load is after the first request).
    pattern = rf"\b[A-Za-z0-9-]+_[A-Za-z0-9_-]*{re.escape(suffix)}\b"
    mentioned = re.search(pattern, conversation.text)
    if mentioned:
        return ToolCall(mentioned.group(0), arguments)
    # Numbered, so that waiting never looks like an endless loop of one call.
    waiting = _shell_turn(f"sleep 0.5 # {conversation.wait_results + 1}", names, wait=True)
    if conversation.wait_results < MAX_WAITS and isinstance(waiting, ToolCall):
        return waiting
    return Text(f"fake model: no tool ending in {suffix!r} among {sorted(names)}")


def _write_turn(path: str, content: str, tool_names: list[str]) -> Turn:
    """Pick the CLI's write tool for an absolute path, else its shell, to write `path`."""
    if path.startswith("/"):
        for name, (path_key, content_key) in _WRITE_TOOLS.items():
            if name in tool_names:
                return ToolCall(name, {path_key: path, content_key: content})
    folder = path.rsplit("/", 1)[0] if "/" in path and not path.startswith("/") else ""
    command = f"printf %s {shlex.quote(content)} > {shlex.quote(path)}"
    if folder:
        command = f"mkdir -p {shlex.quote(folder)} && {command}"
    return _shell_turn(command, tool_names, wait=False)


def read_turn(path: str, tool_names: list[str], *, look: bool = False) -> Turn:
    """Read `path` with the CLI's read tool, else `cat` it with its shell."""
    for name, key in _READ_TOOLS.items():
        if name in tool_names:
            return ToolCall(name, {key: path}, look=look)
    turn = _shell_turn(f"cat {shlex.quote(path)}", tool_names, wait=False)
    if isinstance(turn, ToolCall) and look:
        return ToolCall(turn.name, turn.arguments, look=True)
    return turn


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
