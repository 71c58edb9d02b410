"""The steps a fake model's script is made of: tool calls, text, and failing answers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class WriteFile:
    """Write `content` to `path`: an absolute path with the CLI's write tool, else its shell.

    A relative path is written by the shell, which runs in the session's checkout.
    """

    path: str
    content: str


@dataclass(frozen=True)
class ReadFile:
    """Read `path` with the CLI's read tool (or `cat` it in its shell)."""

    path: str


@dataclass(frozen=True)
class RunCommand:
    """Run `command` with the CLI's shell tool, in the session's checkout.

    `{test}` in it stands for the test command the session's prompt names.
    """

    command: str


@dataclass(frozen=True)
class CallTool:
    """Call the listed tool whose name ends with `suffix` (an MCP tool such as `submit_reply`)."""

    suffix: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class SayText:
    """Answer with plain text, which ends the CLI's turn."""

    text: str


@dataclass(frozen=True)
class Refuse:
    """Refuse the task: the API's refusal (Anthropic `stop_reason: refusal`, an OpenAI
    `refusal` content part) saying `text`."""

    text: str


@dataclass(frozen=True)
class Reject:
    """Answer with an HTTP error: `status`, the API's error body saying `message`, `headers`.

    `kind` is the error's type in the body (Anthropic `authentication_error`,
    OpenAI `insufficient_quota`…); empty means the usual one for the status.
    `body`, when given, is sent as it is instead.
    """

    status: int
    message: str
    headers: tuple[tuple[str, str], ...] = ()
    kind: str = ""
    body: str = ""


@dataclass(frozen=True)
class Hangup:
    """Close the connection without answering: what a network failure looks like."""


Step = WriteFile | ReadFile | RunCommand | CallTool | SayText | Refuse | Reject | Hangup
