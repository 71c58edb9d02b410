"""The events the live view has read so far: typed events and a pure update over new ones."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import MappingProxyType

RECENT_KEEP = 50
# Kinds shown as "recent events"; session starts, ends and pushes show in the jobs table.
NOTABLE = frozenset({
    "claimed", "released", "finding", "pr-opened", "checks", "stopped", "asked", "split",
    "merged", "stacked", "restacked", "unreadable",
})  # fmt: skip
_HEAD = frozenset({"ts", "issue", "stage", "job", "kind"})
# Kinds that end an issue's work: merged (a PR or a wiki change), split into sub-issues.
FINISHING = frozenset({"merged", "split"})


@dataclass(frozen=True, slots=True)
class Event:
    """One line of an `events.jsonl`; `key` tells it apart from every other event."""

    key: str
    at: datetime | None
    issue: int | None
    stage: str
    job: str
    kind: str
    fields: Mapping[str, object] = field(default_factory=dict)


def _time(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def parse_event(raw: Mapping[str, object], key: str | None = None) -> Event:
    """A decoded events.jsonl object as an `Event`; missing head fields become blanks.

    `key` is the line as written, when known; otherwise the object's canonical JSON.
    """
    issue = raw.get("issue")
    return Event(
        key=json.dumps(raw, sort_keys=True, default=str) if key is None else key,
        at=_time(raw.get("ts")),
        issue=issue if isinstance(issue, int) and not isinstance(issue, bool) else None,
        stage=str(raw.get("stage") or ""),
        job=str(raw.get("job") or ""),
        kind=str(raw.get("kind") or "?"),
        fields=MappingProxyType({k: v for k, v in raw.items() if k not in _HEAD}),
    )


def unreadable(where: str, line: int) -> Event:
    """The stand-in for an events line that is not a JSON object, naming where it is."""
    return Event(
        key=f"unreadable:{where}:{line}",
        at=None,
        issue=None,
        stage="",
        job="",
        kind="unreadable",
        fields=MappingProxyType({"where": f"{where} line {line}"}),
    )


_LAST = datetime.max.replace(tzinfo=UTC)


def is_news(event: Event) -> bool:
    """Whether a person is told of `event`: not a lane's next job taking its own issue back
    (a claim that is not fresh), which would repeat `claimed` at every stage."""
    return not (event.kind == "claimed" and event.fields.get("fresh") is False)


def chronological(events: Sequence[Event]) -> list[Event]:
    """`events` sorted by time; equal times and events without one keep their order (last)."""
    return sorted(events, key=lambda e: e.at or _LAST)


@dataclass(frozen=True, slots=True)
class EventState:
    """The recent notable events (oldest first), each job's session still running, every
    issue an event named, and those whose work ended (merged or split)."""

    recent: tuple[Event, ...] = ()
    open_sessions: Mapping[str, str] = field(default_factory=dict)
    issues: frozenset[int] = frozenset()
    finished: frozenset[int] = frozenset()


def absorb(state: EventState, new: Sequence[Event], keep: int = RECENT_KEEP) -> EventState:
    """The state after `new` events (taken in time order); the same inputs give the same state."""
    sessions = dict(state.open_sessions)
    ordered = chronological(new)
    for event in ordered:
        key = event.fields.get("key")
        if event.kind == "session-started" and isinstance(key, str):
            sessions[event.job] = key
        elif event.kind == "session-ended" and sessions.get(event.job) == key:
            del sessions[event.job]
        elif event.kind == "released":
            sessions.pop(event.job, None)
    notable = tuple(e for e in ordered if e.kind in NOTABLE and is_news(e))
    recent = (state.recent + notable)[-keep:] if keep > 0 else ()
    named = {e.issue for e in ordered if e.issue is not None}
    ended = {e.issue for e in ordered if e.issue is not None and e.kind in FINISHING}
    return EventState(
        recent=recent,
        open_sessions=MappingProxyType(sessions),
        issues=state.issues | named,
        finished=state.finished | ended,
    )
