"""The watchdog's memory between ticks, a pure value the tick keeps in `watchdog.json`."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from conveyor.core.state import Stage
from conveyor.core.stops import StopCode

CODES = frozenset(code.value for code in StopCode)


@dataclass(frozen=True, slots=True)
class WatchdogStop:
    """A stop the watchdog decided for one job; `seen` once the issue carries a stop label,
    `released` once a person removed the label (the job's record is then never judged again).

    A silence or budget stop waits for the job to exit after SIGTERM (WD-7, WD-10),
    and is asked for again each tick until the label shows it was carried out.
    """

    issue: int
    job_started_at: datetime
    control: StopCode
    reason: str
    seen: bool = False
    released: bool = False


@dataclass(frozen=True, slots=True)
class Steered:
    """One repeated-failure steer already sent: the job, its session and the tool."""

    issue: int
    job_started_at: datetime
    session: str
    tool: str


@dataclass(frozen=True, slots=True)
class WatchMemory:
    """Resume counts per issue, the watchdog's own stops, the steers sent, the escalations made.

    `resume_stages` names the stage each issue's resume count was made at: a count holds
    for that stage only and starts again once the issue moves on (an older file without
    it keeps its counts for whatever stage the issue is at).
    """

    resumes: tuple[tuple[int, int], ...] = ()
    stops: tuple[WatchdogStop, ...] = ()
    steered: tuple[Steered, ...] = ()
    escalated: tuple[tuple[int, StopCode], ...] = ()
    resume_stages: tuple[tuple[int, Stage], ...] = ()


def memory_to_json(memory: WatchMemory) -> dict[str, Any]:
    """The memory as plain JSON values (the tick writes them to `watchdog.json`)."""
    return {
        "version": 1,
        "resumes": {str(issue): count for issue, count in memory.resumes},
        "resume_stages": {str(issue): stage.value for issue, stage in memory.resume_stages},
        "stops": [
            {
                "issue": stop.issue,
                "job_started_at": stop.job_started_at.isoformat(),
                "control": stop.control.value,
                "reason": stop.reason,
                "seen": stop.seen,
                "released": stop.released,
            }
            for stop in memory.stops
        ],
        "steered": [
            {
                "issue": s.issue,
                "job_started_at": s.job_started_at.isoformat(),
                "session": s.session,
                "tool": s.tool,
            }
            for s in memory.steered
        ],
        "escalated": [[issue, control.value] for issue, control in memory.escalated],
    }


def _field(data: dict[str, Any], key: str, kind: type, where: str) -> Any:
    """One typed field of a JSON object, or a ValueError naming where it is wrong."""
    value = data.get(key)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        msg = f"watchdog.json: {where}.{key}: expected {kind.__name__}, got {value!r}"
        raise ValueError(msg)
    return value


def _time(data: dict[str, Any], key: str, where: str) -> datetime:
    """A timezone-aware ISO time field."""
    text = _field(data, key, str, where)
    try:
        value = datetime.fromisoformat(text)
    except ValueError as error:
        msg = f"watchdog.json: {where}.{key}: not an ISO time: {text!r}"
        raise ValueError(msg) from error
    if value.tzinfo is None:
        msg = f"watchdog.json: {where}.{key}: time without a timezone: {text!r}"
        raise ValueError(msg)
    return value


def _control(text: object, where: str) -> StopCode:
    """A stop code by its value."""
    if isinstance(text, str) and text in CODES:
        return StopCode(text)
    msg = f"watchdog.json: {where}: unknown stop control {text!r}"
    raise ValueError(msg)


def memory_from_json(data: object) -> WatchMemory:
    """Read the memory back; a malformed file is a ValueError naming the bad field."""
    if not isinstance(data, dict) or data.get("version") != 1:
        msg = "watchdog.json: expected an object with version 1"
        raise ValueError(msg)
    resumes = _field(data, "resumes", dict, "watchdog")
    stops, steered = (
        _field(data, "stops", list, "watchdog"),
        _field(data, "steered", list, "watchdog"),
    )
    escalated = _field(data, "escalated", list, "watchdog")
    counts: list[tuple[int, int]] = []
    for key, count in resumes.items():
        if not key.isdigit() or not isinstance(count, int) or isinstance(count, bool):
            msg = f"watchdog.json: resumes.{key}: expected an issue number and a count"
            raise ValueError(msg)
        counts.append((int(key), count))
    read_stops = tuple(
        WatchdogStop(
            issue=_field(item, "issue", int, f"stops[{i}]"),
            job_started_at=_time(item, "job_started_at", f"stops[{i}]"),
            control=_control(item.get("control"), f"stops[{i}].control"),
            reason=_field(item, "reason", str, f"stops[{i}]"),
            seen=_field(item, "seen", bool, f"stops[{i}]"),
            released=_field(item, "released", bool, f"stops[{i}]"),
        )
        for i, item in enumerate(_objects(stops, "stops"))
    )
    read_steered = tuple(
        Steered(
            issue=_field(item, "issue", int, f"steered[{i}]"),
            job_started_at=_time(item, "job_started_at", f"steered[{i}]"),
            session=_field(item, "session", str, f"steered[{i}]"),
            tool=_field(item, "tool", str, f"steered[{i}]"),
        )
        for i, item in enumerate(_objects(steered, "steered"))
    )
    pairs: list[tuple[int, StopCode]] = []
    for i, pair in enumerate(escalated):
        if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], int)):
            msg = f"watchdog.json: escalated[{i}]: expected [issue, control]"
            raise ValueError(msg)
        pairs.append((pair[0], _control(pair[1], f"escalated[{i}]")))
    stages = _resume_stages(data.get("resume_stages", {}))
    return WatchMemory(tuple(sorted(counts)), read_stops, read_steered, tuple(pairs), stages)


def _resume_stages(data: object) -> tuple[tuple[int, Stage], ...]:
    """The stage of each issue's resume count (absent in files written before it was kept)."""
    if not isinstance(data, dict):
        msg = "watchdog.json: resume_stages: expected an object"
        raise ValueError(msg)
    known = {stage.value for stage in Stage}
    found: list[tuple[int, Stage]] = []
    for key, value in data.items():
        if not key.isdigit() or value not in known:
            msg = f"watchdog.json: resume_stages.{key}: expected an issue number and a stage"
            raise ValueError(msg)
        found.append((int(key), Stage(value)))
    return tuple(sorted(found))


def _objects(items: list[Any], where: str) -> list[dict[str, Any]]:
    """The list's items, each a JSON object."""
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            msg = f"watchdog.json: {where}[{i}]: expected an object, got {item!r}"
            raise ValueError(msg)
    return items
