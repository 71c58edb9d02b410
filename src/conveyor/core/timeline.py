"""An issue's timeline: one bar per stage job, session and command run, drawn as text or SVG.

Read from what the jobs leave (pure; the caller reads the files): each job's
`job.json` (stage, start, end, outcome), the issue's `events.jsonl` (a session's
`session-started` and `session-ended`) and each command run's record, written next
to its log as `<log name>.run.json` (`command_record`). Bars keep their job's
order (oldest first) with the job's sessions and commands after it, by start.
Every label is made printable (`core.printable`) for a terminal and escaped for SVG.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from html import escape
from typing import Literal

from conveyor.core.printable import printable

RUN_SUFFIX = ".run.json"  # a command run's record, next to its `.log`
BarKind = Literal["job", "session", "command"]
_GLYPH: dict[str, str] = {"job": "█", "session": "▒", "command": "░"}
_FILL: dict[str, str] = {"job": "#0969da", "session": "#8250df", "command": "#1a7f37"}


@dataclass(frozen=True)
class Bar:
    """One span of the issue's work: a stage job, or a session or command run in one."""

    kind: BarKind
    label: str
    start: datetime
    end: datetime
    job: str
    outcome: str = ""

    @property
    def seconds(self) -> float:
        """How long it took (never negative)."""
        return max(0.0, (self.end - self.start).total_seconds())


@dataclass(frozen=True)
class Timeline:
    """The bars in order, and the span they cover."""

    bars: tuple[Bar, ...]

    @property
    def start(self) -> datetime | None:
        """The earliest start, None for no bars."""
        return min((b.start for b in self.bars), default=None)

    @property
    def end(self) -> datetime | None:
        """The latest end, None for no bars."""
        return max((b.end for b in self.bars), default=None)


def command_record(name: str, started: datetime, ended: datetime, outcome: str) -> dict[str, str]:
    """What a command run leaves next to its log (`RUN_SUFFIX`)."""
    return {
        "name": name,
        "started_at": started.isoformat(),
        "ended_at": ended.isoformat(),
        "outcome": outcome,
    }


def _time(value: object) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def _job_bar(record: Mapping[str, object]) -> Bar | None:
    finished = record.get("finished")
    start = _time(record.get("started_at"))
    done = finished.get("at") if isinstance(finished, dict) else None
    end = _time(done) or _time(record.get("heartbeat"))
    if start is None or end is None:
        return None
    outcome = finished.get("outcome") if isinstance(finished, dict) else "running"
    job = str(record.get("job_id") or "")
    return Bar("job", str(record.get("stage") or "?"), start, end, job, str(outcome or ""))


def _session_bars(events: Sequence[Mapping[str, object]]) -> list[Bar]:
    started: dict[tuple[str, str], datetime] = {}
    bars = []
    for event in events:
        key = (str(event.get("job") or ""), str(event.get("key") or ""))
        at = _time(event.get("ts"))
        if at is None:
            continue
        if event.get("kind") == "session-started":
            started[key] = at
        elif event.get("kind") == "session-ended" and key in started:
            status = str(event.get("status") or "")
            bars.append(Bar("session", key[1], started.pop(key), at, key[0], status))
    return bars


def build_timeline(
    jobs: Sequence[Mapping[str, object]],
    events: Sequence[Mapping[str, object]],
    commands: Mapping[str, Sequence[Mapping[str, object]]],
) -> Timeline:
    """The bars of `jobs` (job.json records), their sessions from `events` and their command
    runs (`commands` by job id, `command_record`s); unreadable records are left out."""
    job_bars = sorted((b for b in map(_job_bar, jobs) if b is not None), key=lambda b: b.start)
    children: dict[str, list[Bar]] = {}
    for bar in _session_bars(events):
        children.setdefault(bar.job, []).append(bar)
    for job, records in commands.items():
        for record in records:
            start, end = _time(record.get("started_at")), _time(record.get("ended_at"))
            if start is not None and end is not None:
                name, outcome = str(record.get("name") or "?"), str(record.get("outcome") or "")
                children.setdefault(job, []).append(Bar("command", name, start, end, job, outcome))
    bars: list[Bar] = []
    for parent in job_bars:
        bars.append(parent)
        bars.extend(sorted(children.get(parent.job, []), key=lambda b: b.start))
    return Timeline(tuple(bars))


def render_text(timeline: Timeline, width: int = 80) -> list[str]:
    """One line per bar: its label, a bar placed on the issue's span scaled to `width`
    columns, and its seconds. Sessions and commands are indented under their job."""
    first, last = timeline.start, timeline.end
    if first is None or last is None:
        return ["No jobs ran for this issue yet."]
    span = max((last - first).total_seconds(), 1e-6)
    label_w = min(24, max(len(_label(b)) for b in timeline.bars))
    area = max(10, width - label_w - 12)
    lines = []
    for bar in timeline.bars:
        begin = round((bar.start - first).total_seconds() / span * area)
        size = max(1, round(bar.seconds / span * area))
        begin = min(begin, area - size)
        drawn = " " * begin + _GLYPH[bar.kind] * size + " " * (area - begin - size)
        label = _label(bar)[:label_w].ljust(label_w)
        lines.append(f"{label} {drawn} {bar.seconds:7.2f} s")
    total = f"{'total'.ljust(label_w)} {' ' * area} {span:7.2f} s"
    return [*lines, total]


def _label(bar: Bar) -> str:
    text = printable(bar.label, one_line=True)
    return text if bar.kind == "job" else f"  {text}"


def render_svg(timeline: Timeline, width: int = 720) -> str:
    """An SVG with one `rect` per bar (a `title` says what, how long and how it ended)."""
    first, last = timeline.start, timeline.end
    if first is None or last is None:
        return ""
    span = max((last - first).total_seconds(), 1e-6)
    label_w, row = 180, 18
    area = width - label_w - 70
    height = row * len(timeline.bars) + 4
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="timeline" width="{width}" '
        f'height="{height}" role="img" aria-label="timeline">'
    ]
    for i, bar in enumerate(timeline.bars):
        y = 2 + i * row
        x = label_w + (bar.start - first).total_seconds() / span * area
        w = max(1.0, bar.seconds / span * area)
        what = escape(printable(bar.label, one_line=True))
        tip = f"{bar.kind} {what}: {bar.seconds:.2f} s" + (
            f", {escape(printable(bar.outcome, one_line=True))}" if bar.outcome else ""
        )
        indent = 0 if bar.kind == "job" else 12
        parts.append(
            f'<text x="{indent}" y="{y + 13}" font-size="12">{what}</text>'
            f'<rect data-kind="{bar.kind}" x="{x:.1f}" y="{y}" width="{w:.1f}" '
            f'height="{row - 4}" fill="{_FILL[bar.kind]}"><title>{tip}</title></rect>'
            f'<text x="{label_w + area + 6}" y="{y + 13}" font-size="12">{bar.seconds:.1f} s</text>'
        )
    parts.append("</svg>")
    return "".join(parts)
