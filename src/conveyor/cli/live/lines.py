"""The no-terminal mode: one plain line per event, each event printed once (pure)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC

from conveyor.cli.live.feed import Event, chronological, is_news

Fields = Mapping[str, object]

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
    "checks": ("head", "passed", "verify", "wiki"),
    "merged": ("pr", "sha", "tests_only", "wiki_only", "commits"),
    "stacked": ("on", "head"),
    "restacked": ("on", "onto", "outcome"),
}
SHA_SHOWN = 7


def duration(seconds: float) -> str:
    """`4m05s`, or `1h02m` past an hour."""
    minutes, secs = divmod(max(0, int(seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s"


def short(sha: object) -> str:
    """A commit's first 7 hex digits, as git shows it; `?` when there is none."""
    return str(sha)[:SHA_SHOWN] if sha else "?"


def _branch(ref: object) -> str:
    return str(ref or "?").removeprefix("refs/heads/")


def _rest(fields: Fields, skip: Sequence[str] = ()) -> str:
    parts = [f"{k}={v}" for k, v in fields.items() if k not in skip and v not in (None, "")]
    return " ".join(parts)


def _pr(value: object) -> str:
    return f" PR #{value}" if isinstance(value, int) else ""


def _session_ended(f: Fields) -> str:
    error = f" ({f['error']})" if f.get("error") else ""
    said = f"session {f.get('key', '?')} {f.get('status', 'ended')}{error}"
    tokens = f.get("tokens", 0)
    return f"{said}, {tokens:,} tokens" if isinstance(tokens, int) else f"{said}, {tokens} tokens"


def _pr_opened(f: Fields) -> str:
    return "opened" + (" draft" if f.get("draft") else "") + (_pr(f.get("pr")) or " a PR")


def _split(f: Fields) -> str:
    parts = f.get("sub_issues")
    numbers = parts if isinstance(parts, list) else []
    return "split into " + (" ".join(f"#{n}" for n in numbers) or "sub-issues")


def _finding(f: Fields) -> str:
    severity = f"({f['severity']})" if f.get("severity") else ""
    head = " ".join(str(p) for p in ("finding", f.get("id"), severity) if p)
    title = f.get("title") or f.get("summary")
    text = f"{head}: {title}" if title else head
    rest = _rest(f, ("id", "severity", "title", "summary"))
    return text + (f" ({rest})" if rest else "")


def _merged(f: Fields) -> str:
    if f.get("wiki_only"):
        commits = f.get("commits")
        return "published the wiki" + (f" ({commits} commit(s))" if commits else "")
    at = f" as {short(f['sha'])}" if f.get("sha") else ""
    return "merged" + _pr(f.get("pr")) + at + (" (tests only)" if f.get("tests_only") else "")


def _checks(f: Fields) -> str:
    what = "wiki checks" if f.get("wiki") else "checks"
    verdict = "passed" if f.get("passed") else "failed"
    return f"{what} {verdict} at {short(f.get('head'))}"


def _restacked(f: Fields) -> str:
    onto = short(f.get("onto"))
    return f"restacked on #{f.get('on', '?')}: onto {onto} ({f.get('outcome', '?')})"


_PHRASES: Mapping[str, Callable[[Fields], str]] = {
    "claimed": lambda f: f"claimed (lane {f.get('lane', '?')})",
    "released": lambda f: f"released after {f.get('outcome', '?')}",
    "session-started": lambda f: f"session {f.get('key', '?')} started",
    "session-ended": _session_ended,
    "pushed": lambda f: f"pushed {short(f.get('sha'))} to {_branch(f.get('ref'))}",
    "pr-opened": _pr_opened,
    "stopped": lambda f: f"stopped by {f.get('code', '?')}: {f.get('reason', '')}".rstrip(": "),
    "asked": lambda f: f"asked {f.get('questions', '?')} question(s), waiting for an answer",
    "split": _split,
    "finding": _finding,
    "merged": _merged,
    "stacked": lambda f: f"stacked on #{f.get('on', '?')} at {short(f.get('head'))}",
    "checks": _checks,
    "restacked": _restacked,
    "pr-retargeted": lambda f: f"PR #{f.get('pr', '?')} now based on {f.get('base', '?')}",
    "network-blocked": lambda f: (
        f"session {f.get('key', '?')}: connection to {f.get('host', '?')}:{f.get('port', '?')}"
        " blocked by the sandbox"
    ),
    "unreadable": lambda f: f"unreadable event line: {f.get('where', '?')}",
}
"""How each known kind of event reads; any other kind reads as its name and fields."""


def summary(event: Event) -> str:
    """What happened, in a few words (no time, issue or stage)."""
    f = event.fields
    phrase = _PHRASES.get(event.kind)
    if phrase is None:
        rest = _rest(f)
        return f"{event.kind} {rest}" if rest else event.kind
    text = phrase(f)
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
    event seen twice, in one batch or across batches, is printed once, and a lane's
    claim of its own issue again (`is_news`) not at all.
    """
    seen = set(printed.keys)
    out: list[str] = []
    for event in chronological(new):
        if event.key in seen:
            continue
        seen.add(event.key)
        if is_news(event):
            out.append(line(event))
    return Printed(frozenset(seen)), out
