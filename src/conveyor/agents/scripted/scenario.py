"""Scenario files (JSON or TOML): entries matched on the session's identity and issue tag.

The format is documented in docs/scenarios.md. The scripted agent starts once per session,
so its modules import neither pydantic, dataclasses, typing nor pathlib (together over half
of its start-up): plain classes hold the entries and folders are text.
"""

from __future__ import annotations

import json
import os
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

ACTIONS = frozenset(
    {"write", "apply", "run", "commit", "commit_tool", "reply", "handoff", "pause_until", "fail"}
)
FAILURES = frozenset({"api-error", "rate-limit", "no-final", "hang"})
MATCH_KEYS = ("tag", "issue", "stage", "kind", "attempt", "retry")
TITLE_TAG = re.compile(r"\[([A-Za-z0-9_.-]+)\]")
BODY_TAG = re.compile(r"<!--\s*scenario:\s*([A-Za-z0-9_.-]+)\s*-->")
# The exit status of a session the scenario cannot play (no entry matches it, or the file is
# unreadable): the runner stops that issue naming the file, instead of counting a crashed CLI.
SCENARIO_EXIT = 3


class ScenarioError(Exception):
    """The scenario file is unreadable or malformed; the message names where."""


class Turn:
    """One assistant turn: text, usage and cost, then actions."""

    __slots__ = ("actions", "await_steer", "cost", "text", "usage")

    def __init__(
        self,
        *,
        text: str,
        usage: Mapping[str, int],
        cost: float | None,
        actions: tuple[Mapping[str, Any], ...],
        await_steer: bool,
    ) -> None:
        self.text = text
        self.usage = usage
        self.cost = cost
        self.actions = actions
        self.await_steer = await_steer


class Entry:
    """One scripted session and what it matches."""

    __slots__ = ("final", "handoff", "handoff_reply", "match", "on_steer", "turns")

    def __init__(
        self,
        *,
        match: Mapping[str, object],
        turns: tuple[Turn, ...],
        on_steer: str,
        handoff: str,
        handoff_reply: Mapping[str, Any] | None,
        final: str,
    ) -> None:
        self.match = match
        self.turns = turns
        self.on_steer = on_steer
        self.handoff = handoff
        self.handoff_reply = handoff_reply
        self.final = final


def load(path: str | os.PathLike[str]) -> list[Entry]:
    """Read and check a scenario file."""
    path = os.fspath(path)
    try:
        with open(path) as file:
            text = file.read()
        if path.endswith(".toml"):
            import tomllib  # only here: the agent starts once per session

            raw = tomllib.loads(text)
        else:
            raw = json.loads(text)
    except (OSError, ValueError) as exc:
        msg = f"scenario {path}: {exc}"
        raise ScenarioError(msg) from exc
    sessions = raw.get("sessions") if isinstance(raw, dict) else None
    if not isinstance(sessions, list):
        msg = f"scenario {path}: expected a top-level `sessions` list"
        raise ScenarioError(msg)
    return [_entry(item, f"{path}: sessions[{i}]") for i, item in enumerate(sessions)]


def _entry(raw: object, where: str) -> Entry:
    if not isinstance(raw, dict):
        msg = f"{where}: expected a table"
        raise ScenarioError(msg)
    known = {*MATCH_KEYS, "turns", "on_steer", "handoff", "handoff_reply", "final"}
    if unknown := sorted(set(raw) - known):
        msg = f"{where}: unknown keys {unknown}"
        raise ScenarioError(msg)
    turns = raw.get("turns", [])
    if not isinstance(turns, list):
        msg = f"{where}.turns: expected a list"
        raise ScenarioError(msg)
    on_steer = str(raw.get("on_steer", "ignore"))
    if on_steer not in ("ignore", "handoff"):
        msg = f"{where}.on_steer: expected 'ignore' or 'handoff', got {on_steer!r}"
        raise ScenarioError(msg)
    reply = raw.get("handoff_reply")
    return Entry(
        match={k: raw[k] for k in MATCH_KEYS if k in raw},
        turns=tuple(_turn(t, f"{where}.turns[{i}]") for i, t in enumerate(turns)),
        on_steer=on_steer,
        handoff=str(raw.get("handoff", "Handing off: see the commits so far.")),
        handoff_reply=reply if isinstance(reply, dict) else None,
        final=str(raw.get("final", "Done.")),
    )


def _turn(raw: object, where: str) -> Turn:
    if not isinstance(raw, dict):
        msg = f"{where}: expected a table"
        raise ScenarioError(msg)
    usage = raw.get("usage", {"input": 1000, "output": 100})
    if not isinstance(usage, dict) or not all(isinstance(v, int) for v in usage.values()):
        msg = f"{where}.usage: expected integers for input, output, cache_read, cache_write"
        raise ScenarioError(msg)
    actions = raw.get("actions", [])
    if not isinstance(actions, list):
        msg = f"{where}.actions: expected a list"
        raise ScenarioError(msg)
    for i, action in enumerate(actions):
        _check_action(action, f"{where}.actions[{i}]")
    cost = raw.get("cost")
    return Turn(
        text=str(raw.get("text", "")),
        usage=usage,
        cost=float(cost) if isinstance(cost, int | float) else None,
        actions=tuple(actions),
        await_steer=bool(raw.get("await_steer", False)),
    )


def _check_action(action: object, where: str) -> None:
    if not isinstance(action, dict) or len(action) != 1 or next(iter(action)) not in ACTIONS:
        msg = f"{where}: expected one of {sorted(ACTIONS)}, got {action!r}"
        raise ScenarioError(msg)
    name, arg = next(iter(action.items()))
    tables = {"write": ("path",), "commit_tool": ("paths", "message"), "reply": ()}
    if name in tables:
        if not isinstance(arg, dict) or not set(tables[name]) <= set(arg):
            msg = f"{where}.{name}: expected a table with {list(tables[name]) or 'the reply'}"
            raise ScenarioError(msg)
    elif name == "commit" and not isinstance(arg, str | dict):
        msg = f"{where}.commit: expected a message or {{message, paths}}"
        raise ScenarioError(msg)
    elif name == "fail" and (arg.get("kind") if isinstance(arg, dict) else arg) not in FAILURES:
        msg = f"{where}.fail: expected a kind among {sorted(FAILURES)}"
        raise ScenarioError(msg)
    elif name in ("apply", "run", "handoff", "pause_until") and not isinstance(arg, str):
        msg = f"{where}.{name}: expected a string"
        raise ScenarioError(msg)


def issue_tag(issue_text: str, *, has_title: bool = True) -> str | None:
    """The scenario tag of an issue: `<!-- scenario: NAME -->` anywhere, else `[NAME]` in the title.

    The title is the first non-empty line (a leading `#` or `Title:` is dropped); with
    `has_title` false (text that is not an issue file) only the comment marker counts.
    """
    if match := BODY_TAG.search(issue_text):
        return match.group(1)
    if not has_title:
        return None
    title = next((line for line in issue_text.splitlines() if line.strip()), "")
    title = title.lstrip("# ").removeprefix("Title:").strip()
    match = TITLE_TAG.search(title)
    return match.group(1) if match else None


def identity(env: Mapping[str, str], tag: str | None) -> dict[str, object]:
    """The values scenario entries are matched against."""
    ints = {"issue": "CONVEYOR_ISSUE", "attempt": "CONVEYOR_ATTEMPT", "retry": "CONVEYOR_RETRY"}
    out: dict[str, object] = {"tag": tag}
    for key, name in ints.items():
        value = env.get(name, "")
        out[key] = int(value) if value.isdigit() else None
    out["stage"] = env.get("CONVEYOR_STAGE")
    out["kind"] = env.get("CONVEYOR_SESSION_KIND")
    return out


def describe(ident: Mapping[str, object]) -> str:
    """The session as a person reads it when no entry matches: its tag, stage, kind, tries."""
    tag = ident.get("tag")
    said = f"tag {tag!r}" if tag else "no tag (the issue's title has no [NAME])"
    rest = ", ".join(f"{key} {ident.get(key)!r}" for key in MATCH_KEYS[1:])
    return f"{said}, {rest}"


def choose(entries: list[Entry], ident: Mapping[str, object]) -> Entry | None:
    """The first entry whose every match key equals the session's value."""
    for entry in entries:
        if all(ident.get(key) == value for key, value in entry.match.items()):
            return entry
    return None
