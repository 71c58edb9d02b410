"""A playbook: one script per session kind (and issue tag), chosen from what a request says.

Whole issues run through a real CLI this way. Every request names its session
by the role its prompt gives (`KINDS`); when the playbook holds scripts for
several issues, the model first reads the issue file the task names and picks
the script by the `[tag]` in its title, as the scripted agent does.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from conveyor.testing.fake_model.script import (
    Branch,
    Conversation,
    Script,
    Text,
    Turn,
    Usage,
    play,
    read_turn,
)
from conveyor.testing.fake_model.steps import CallTool, RunCommand, Step, WriteFile

# The session kind a request's prompt names, most specific first (`{lens}` from the match).
LENS = r"for issue #\d+ through your lens only \((\w+)\)"
KINDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("angle-{lens}", re.compile(r"from one angle only \(([\w-]+)\)")),
    ("rereview-{lens}", re.compile(rf"Re-review a fix {LENS}")),
    ("review-{lens}", re.compile(rf"Review the change {LENS}")),
    ("triage", re.compile(r"You are the triage reader")),
    ("spec", re.compile(r"You are the spec writer")),
    ("implement", re.compile(r"You are the implementer")),
    ("aggregate", re.compile(r"You are the aggregator")),
    ("check_fix", re.compile(r"You are the check fixer")),
    ("fix", re.compile(r"You are the fixer")),
    ("accept", re.compile(r"You are the acceptance verifier")),
    ("security", re.compile(r"You are the security reviewer")),
    ("resolver", re.compile(r"You are the conflict resolver")),
    ("brief", re.compile(r"You are the distiller of a code review")),
    ("pr-review", re.compile(r"You are the reviewer who posts the review")),
)  # fmt: skip
ISSUE_FILE = re.compile(r"`([^`\s]*/issue\.md)`")
TITLE_TAG = re.compile(r"# #\d+: [^\n]*?\[([A-Za-z0-9_.-]+)\]")
HANDOFF_MARK = "Your context is nearly full"


def session_kind(text: str) -> str | None:
    """The session kind the request's prompt names, or None."""
    for kind, pattern in KINDS:
        if found := pattern.search(text):
            return kind.format(lens=found.group(1)) if "{lens}" in kind else kind
    return None


@dataclass(frozen=True)
class Part:
    """The script of the sessions of one `kind` (of the issue tagged `tag`, when given)."""

    kind: str
    script: Script
    tag: str | None = None


@dataclass
class Playbook:
    """Scripts by session kind and issue tag; `drop` retires a part (an answered question)."""

    parts: list[Part]
    usage: Usage = field(default_factory=Usage)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def play(self, conversation: Conversation) -> tuple[Turn, Usage]:
        """The turn for this request: read the issue first when the tag decides the script."""
        names = conversation.tool_names
        kind = session_kind(conversation.text)
        if not names or kind is None:
            return Text("Fake session" if not names else "fake model: no session role"), self.usage
        with self._lock:
            parts = [part for part in self.parts if part.kind == kind]
        if not parts:
            return Text(f"fake model: no script for a {kind} session"), self.usage
        tag = None
        if any(part.tag is not None for part in parts):
            tag = _tag(conversation.text)
            where = ISSUE_FILE.search(conversation.text)
            if tag is None and conversation.look_results == 0 and where is not None:
                return read_turn(where.group(1), names, look=True), self.usage
        chosen = next((p for p in parts if p.tag in (None, tag)), None)
        if chosen is None:
            return Text(f"fake model: no {kind} script for issue [{tag}]"), self.usage
        return play(chosen.script, conversation)

    def drop(self, tag: str, kind: str) -> None:
        """Retire the first part for `tag` and `kind` (the demo's actor answered a question),
        never the last one: an answer given twice does not leave the session unscripted."""
        with self._lock:
            found = [i for i, p in enumerate(self.parts) if p.tag == tag and p.kind == kind]
            if len(found) > 1:
                del self.parts[found[0]]


def _tag(text: str) -> str | None:
    found = TITLE_TAG.search(text)
    return found.group(1) if found else None


def parts_from_scenario(sessions: Iterable[Mapping[str, Any]]) -> list[Part]:
    """The parts a scripted-agent scenario's `sessions` entries make (docs/scenarios.md).

    Writes, runs and replies become the CLI's own tool calls; a `commit` commits the
    paths written so far through the MCP `commit` tool; `on_steer = "handoff"` becomes a
    branch taken when the handoff steer arrives. The first turn's usage is reported.
    """
    parts: list[Part] = []
    for entry in sessions:
        steps = _steps(entry)
        branches: tuple[Branch, ...] = ()
        if entry.get("on_steer") == "handoff":
            handoff: list[Step] = [_handoff(str(entry.get("handoff", "Handing off.")))]
            if isinstance(entry.get("handoff_reply"), Mapping):
                handoff.append(CallTool("submit_reply", dict(entry["handoff_reply"])))
            branches = (Branch(HANDOFF_MARK, Script(tuple(handoff))),)
        script = Script(tuple(steps), usage=_usage(entry), branches=branches)
        tag = entry.get("tag")
        parts.append(Part(str(entry["kind"]), script, str(tag) if tag else None))
    return parts


def _steps(entry: Mapping[str, Any]) -> list[Step]:
    steps: list[Step] = []
    written: list[str] = []
    for turn in entry.get("turns", []):
        for action in turn.get("actions", []):
            ((name, arg),) = action.items()
            match name:
                case "write":
                    steps.append(WriteFile(str(arg["path"]), str(arg["content"])))
                    written.append(str(arg["path"]))
                case "commit":
                    message = arg if isinstance(arg, str) else str(arg["message"])
                    paths = written if isinstance(arg, str) else list(arg.get("paths") or written)
                    steps.append(CallTool("commit", {"paths": list(paths), "message": message}))
                case "commit_tool":
                    steps.append(CallTool("commit", dict(arg)))
                case "reply":
                    steps.append(CallTool("submit_reply", dict(arg)))
                case "run":
                    steps.append(RunCommand(str(arg)))
                case "handoff":
                    steps.append(_handoff(str(arg)))
                case _:
                    msg = f"a fake model cannot play the scripted action {name!r}"
                    raise ValueError(msg)
    return steps


def _handoff(text: str) -> RunCommand:
    quoted = text.replace("'", "'\\''")
    return RunCommand(f"printf %s '{quoted}' > \"$CONVEYOR_SESSION_DIR/handoff.md\"")


def _usage(entry: Mapping[str, Any]) -> Usage:
    turns = entry.get("turns") or [{}]
    raw = turns[0].get("usage") or {}
    return Usage(
        input_tokens=int(raw.get("input", 1000)),
        output_tokens=int(raw.get("output", 100)),
        cache_read_tokens=int(raw.get("cache_read", 0)),
        cache_write_tokens=int(raw.get("cache_write", 0)),
    )
