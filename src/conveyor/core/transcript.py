"""A session's transcript as people read it: messages, tool calls, results, turns, totals (pure).

Built from the event stream a session left (`transcript.jsonl`) by the backend's own
parser (the numbers: tokens, cost, contexts, errors, exactly as the runner counted
them) and a reader of the same stream for what was said (`agents/transcript/`).
`conveyor transcript` prints it and the forge's transcript page shows it; both cut
long texts here, by one rule, and pass what they show through `core.printable`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

EntryKind = Literal["task", "text", "thinking", "call", "result", "error", "turn"]
# How much of a text each kind shows: (lines, characters). A tool's result is the longest
# thing a transcript holds (a file read, a test run) and the least read, so it is cut short.
LIMITS: dict[EntryKind, tuple[int, int]] = {
    "task": (12, 1_500),
    "text": (40, 4_000),
    "thinking": (8, 800),
    "call": (6, 400),
    "result": (8, 800),
    "error": (8, 800),
    "turn": (1, 200),
}


@dataclass(frozen=True)
class Entry:
    """One thing in a session: the task, a message, a call and its result, a turn's end.

    `name` is the tool of a call or result; `failed` marks a result that was an error.
    """

    kind: EntryKind
    text: str
    name: str = ""
    failed: bool = False


@dataclass(frozen=True)
class Totals:
    """What the runner's parser counted over the whole stream."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float | None = None
    turns: int = 0
    peak_context: int = 0
    tool_calls: int = 0
    tool_failures: int = 0
    unparsed_lines: int = 0
    error: str | None = None


@dataclass(frozen=True)
class SessionTranscript:
    """One session of one job: where it ran, how it ended, what it said and did."""

    job: str
    stage: str
    key: str
    backend: str
    model: str
    status: str
    ended_at: str | None
    entries: tuple[Entry, ...]
    totals: Totals


@dataclass(frozen=True)
class Found:
    """An issue's sessions, oldest job first, and the job files that could not be read."""

    sessions: tuple[SessionTranscript, ...]
    unreadable: tuple[str, ...]


def cut(text: str, kind: EntryKind) -> tuple[str, int]:
    """The part of `text` shown for an entry of `kind`, and how many lines were left out.

    A text past the kind's characters is cut there too, ending in `…`.
    """
    most_lines, most_chars = LIMITS[kind]
    lines = text.strip("\n").split("\n")
    shown = "\n".join(lines[:most_lines])
    if len(shown) > most_chars:
        shown = shown[:most_chars].rstrip() + " …"
    return shown, len(lines) - (shown.count("\n") + 1)


def money(cost: float | None) -> str:
    """`$0.0123`, or `cost unknown` when the CLI reports none (codex)."""
    return "cost unknown" if cost is None else f"${cost:.4f}"


def totals_line(totals: Totals) -> str:
    """Tokens by kind, turns, tool calls, cost: one line."""
    parts = [
        f"{totals.turns} turns",
        f"{totals.input_tokens:,} in",
        f"{totals.output_tokens:,} out",
        f"{totals.cache_read_tokens:,} cache read",
        f"{totals.cache_write_tokens:,} cache write",
        f"peak context {totals.peak_context:,}",
        f"{totals.tool_calls} tool calls"
        + (f" ({totals.tool_failures} failed)" if totals.tool_failures else ""),
        money(totals.cost_usd),
    ]
    if totals.unparsed_lines:
        parts.append(f"{totals.unparsed_lines} lines not JSON")
    return " · ".join(parts)
