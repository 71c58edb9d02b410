"""The no-terminal mode: one plain line per event, each event printed once (pure)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC

from conveyor.cli.live.feed import Event, chronological

_SHOWN = {
    "claimed": ("lane", "fresh"),
    "released": ("outcome",),
    "session-started": ("key", "session_kind", "attempt"),
    "session-ended": ("key", "status", "tokens", "error"),
    "pushed": ("ref", "sha"),
    "pr-opened": ("pr", "draft"),
    "stopped": ("code", "reason"),
    "asked": ("questions",),
    "split": ("sub_issues",),
}


def _rest(fields: Mapping[str, object], skip: Sequence[str] = ()) -> str:
    parts = [f"{k}={v}" for k, v in fields.items() if k not in skip and v not in (None, "")]
    return " ".join(parts)


def _pr(value: object) -> str:
    return f" PR #{value}" if isinstance(value, int) else ""


def summary(event: Event) -> str:
    """What happened, in a few words (no time, issue or stage)."""
    f = event.fields
    match event.kind:
        case "claimed":
            text = f"claimed (lane {f.get('lane', '?')})"
        case "released":
            text = f"released after {f.get('outcome', '?')}"
        case "session-started":
            text = f"session {f.get('key', '?')} started"
        case "session-ended":
            error = f" ({f['error']})" if f.get("error") else ""
            text = f"session {f.get('key', '?')} {f.get('status', 'ended')}{error}"
            text += f", {f.get('tokens', 0)} tokens"
        case "pushed":
            text = f"pushed {str(f.get('sha', '?'))[:10]} to {f.get('ref', '?')}"
        case "pr-opened":
            text = "opened" + (" draft" if f.get("draft") else "") + (_pr(f.get("pr")) or " a PR")
        case "stopped":
            text = f"stopped by {f.get('code', '?')}: {f.get('reason', '')}".rstrip(": ")
        case "asked":
            text = f"asked {f.get('questions', '?')} question(s), waiting for an answer"
        case "split":
            parts = f.get("sub_issues")
            numbers = parts if isinstance(parts, list) else []
            text = "split into " + (" ".join(f"#{n}" for n in numbers) or "sub-issues")
        case "finding":
            severity = f"({f['severity']})" if f.get("severity") else ""
            head = " ".join(str(p) for p in ("finding", f.get("id"), severity) if p)
            title = f.get("title") or f.get("summary")
            text = f"{head}: {title}" if title else head
            rest = _rest(f, ("id", "severity", "title", "summary"))
            text += f" ({rest})" if rest else ""
        case "merged":
            text = "merged" + _pr(f.get("pr"))
            rest = _rest(f, ("pr",))
            text += f" {rest}" if rest else ""
        case "stacked":
            text = f"stacked on #{f.get('on', '?')} at {str(f.get('head', '?'))[:10]}"
        case "restacked":
            onto = str(f.get("onto", "?"))[:10]
            text = f"restacked on #{f.get('on', '?')}: onto {onto} ({f.get('outcome', '?')})"
        case "pr-retargeted":
            text = f"PR #{f.get('pr', '?')} now based on {f.get('base', '?')}"
        case "unreadable":
            text = f"unreadable event line: {f.get('where', '?')}"
        case _:
            rest = _rest(f)
            text = f"{event.kind} {rest}" if rest else event.kind
    if event.kind in _SHOWN:
        extra = _rest(f, _SHOWN[event.kind])
        text += f" ({extra})" if extra else ""
    return text


def where(event: Event) -> str:
    """`#7 implement`: the issue and stage an event belongs to."""
    issue = f"#{event.issue}" if event.issue is not None else "-"
    return f"{issue} {event.stage}".rstrip()


def line(event: Event) -> str:
    """The plain line printed for one event."""
    at = event.at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S") if event.at else "-"
    return f"{at}  {where(event)}  {summary(event)}"


@dataclass(frozen=True, slots=True)
class Printed:
    """The keys of every event already printed."""

    keys: frozenset[str] = frozenset()


def mark_printed(printed: Printed, events: Sequence[Event]) -> Printed:
    """`printed` with `events` counted as printed (a backlog left out)."""
    return Printed(printed.keys | {event.key for event in events})


def next_lines(printed: Printed, new: Sequence[Event]) -> tuple[Printed, list[str]]:
    """The lines for events not printed before, oldest first, and what is printed after them.

    `new` is sorted by time (events without one keep their place at the end); an
    event seen twice, in one batch or across batches, is printed once.
    """
    seen = set(printed.keys)
    out: list[str] = []
    for event in chronological(new):
        if event.key in seen:
            continue
        seen.add(event.key)
        out.append(line(event))
    return Printed(frozenset(seen)), out
