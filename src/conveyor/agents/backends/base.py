"""What every backend provides: a launch (argv, stdin, files, env) and a stream parser."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from conveyor.agents.backends.reset_time import reset_after
from conveyor.core.backends import BackendName
from conveyor.core.config import AgentChoice
from conveyor.core.session import SessionRole, SessionSpec, Usage, turn_context
from conveyor.core.transcript import Entry

USAGE_LIMIT = re.compile(r"usage limit|rate limit|hit your limit|limit reached|\b429\b", re.I)
RESET_EPOCH = re.compile(r"\|(\d{10})\b")


@dataclass(frozen=True)
class McpCommand:
    """How to start `conveyor mcp` for this session, and the variables it must see."""

    command: str
    args: tuple[str, ...]
    env: dict[str, str]


@dataclass(frozen=True)
class Launch:
    """One CLI process: argv, the first stdin text, files to write first, extra env."""

    argv: list[str]
    stdin_text: str | None
    keep_stdin_open: bool = False
    files: dict[Path, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)


@dataclass
class StreamState:
    """What a parser has learned from the stream so far."""

    usage: Usage = field(default_factory=Usage)
    cost_usd: float | None = None
    contexts: list[int] = field(default_factory=list)
    session_id: str | None = None
    final_text: str | None = None
    ended: bool = False
    error: str | None = None
    rate_limited: bool = False
    rate_limit_reset: float | None = None
    tool_calls: int = 0
    tool_failures: int = 0
    last_tool_failure: str | None = None
    unparsed: int = 0
    last_call: str | None = None
    same_calls: int = 0
    refusal: str | None = None

    @property
    def turns(self) -> int:
        """Assistant turns seen."""
        return len(self.contexts)

    def turn(self, usage: Usage) -> int:
        """Record one assistant turn; returns its context."""
        context = turn_context(usage)
        self.contexts.append(context)
        return context

    def call(self, name: str, arguments: object) -> None:
        """Record one tool call, counting how many identical calls came in a row."""
        self.tool_calls += 1
        key = f"{name} {json.dumps(arguments, sort_keys=True, default=str)}"
        self.same_calls = self.same_calls + 1 if key == self.last_call else 1
        self.last_call = key

    def fail_tool(self, name: str, error: object) -> None:
        """Record one failed tool call."""
        self.tool_failures += 1
        self.last_tool_failure = f"{name}: {str(error)[:300]}"

    def note_error(self, text: str) -> None:
        """Record an API error; a usage or rate limit is marked, with its reset when given."""
        self.error = text
        if USAGE_LIMIT.search(text):
            self.rate_limited = True
            if match := RESET_EPOCH.search(text):
                self.rate_limit_reset = float(match.group(1))
            elif self.rate_limit_reset is None:
                self.rate_limit_reset = reset_after(text, datetime.now().astimezone())


class StreamParser(Protocol):
    """Reads a CLI's stream one line at a time."""

    state: StreamState

    def feed(self, line: str) -> int | None:
        """Take one line; return the context of an assistant turn that just completed."""


class Backend(Protocol):
    """One agent CLI's code (its facts are its row in `core.backends`): `steerable` takes
    messages on stdin while it runs; `resumable` can be started again on its session with a
    new message (how the others are steered)."""

    name: BackendName
    steerable: bool
    resumable: bool

    def launch(self, spec: SessionSpec, model: str, executable: str, mcp: McpCommand) -> Launch:
        """The process to start."""

    def parser(self) -> StreamParser:
        """A fresh parser of this CLI's stream."""

    def steer_line(self, text: str) -> str:
        """What to write on stdin to steer a live session."""

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
        """The process that continues session `session_id` with the message `text`."""

    def transcript(self, event: dict[str, Any]) -> list[Entry]:
        """What one event of the CLI's stream shows in a transcript (`core.transcript_read`)."""

    def signed_in(
        self, code: int, output: str, choice: AgentChoice, env: Mapping[str, str]
    ) -> tuple[bool, str]:
        """Whether its sign-in status command (`status_args`), which exited `code` and printed
        `output` in a session's environment `env`, says the CLI can work; the line to show."""


def decode(line: str, state: StreamState) -> dict[str, Any] | None:
    """One JSON object, or None (counted as unparsed) for anything else."""
    text = line.strip()
    if not text:
        return None
    try:
        event = json.loads(text)
    except ValueError:
        state.unparsed += 1
        return None
    if not isinstance(event, dict):
        state.unparsed += 1
        return None
    return event


def obj(value: object) -> dict[str, Any]:
    """A JSON object from a stream field; anything else reads as an empty object."""
    return value if isinstance(value, dict) else {}


def num(value: object) -> int:
    """A token count from a stream field; anything that is not a number counts as 0."""
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


def is_writer(spec: SessionSpec) -> bool:
    """Whether the session may edit and commit."""
    return spec.role is SessionRole.WRITER
