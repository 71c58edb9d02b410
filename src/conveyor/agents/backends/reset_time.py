"""When a usage limit lifts, read from the words a CLI says it with (its local time)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

# codex: "… try again at 8:10 PM." (today) or "… Try again at Dec 3rd, 2026 8:10 PM."
AT = re.compile(
    r"try again at (?:(?P<month>[A-Z][a-z]{2}) (?P<day>\d{1,2})(?:st|nd|rd|th)?, (?P<year>\d{4}) )?"
    r"(?P<hour>\d{1,2}):(?P<minute>\d{2}) ?(?P<half>[AP]M)",
    re.IGNORECASE,
)
# claude: "You've hit your limit · resets 3pm (Europe/London)" or "resets 3:30pm".
RESETS = re.compile(
    r"resets (?P<hour>\d{1,2})(?::(?P<minute>\d{2}))? ?(?P<half>am|pm)(?: \((?P<zone>[\w/+-]+)\))?",
    re.IGNORECASE,
)
# "try again in 2 days 3 hours 5 minutes", "try again in 45 seconds"
IN = re.compile(
    r"try again in ((?:\d+(?:\.\d+)? ?(?:days?|hours?|minutes?|mins?|seconds?|s)\b[ ,]*)+)", re.I
)
PART = re.compile(r"(\d+(?:\.\d+)?) ?(day|hour|min|second|s)", re.IGNORECASE)
UNITS = {"day": 86400.0, "hour": 3600.0, "min": 60.0, "second": 1.0, "s": 1.0}
MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def reset_after(text: str, now: datetime) -> float | None:
    """The epoch second the limit named in `text` lifts, or None; `now` is local and aware."""
    if found := AT.search(text):
        return _at(found, now)
    if found := RESETS.search(text):
        zone = _zone(found.group("zone"))
        local = now.astimezone(zone) if zone is not None else now
        return _next(local, _hour(found), int(found.group("minute") or 0))
    if found := IN.search(text):
        seconds = sum(
            float(amount) * UNITS[unit.lower()] for amount, unit in PART.findall(found.group(1))
        )
        return (now + timedelta(seconds=seconds)).timestamp()
    return None


def _hour(found: re.Match[str]) -> int:
    hour = int(found.group("hour")) % 12
    return hour + 12 if found.group("half").lower() == "pm" else hour


def _at(found: re.Match[str], now: datetime) -> float | None:
    hour, minute = _hour(found), int(found.group("minute"))
    if found.group("month") is None:
        return _next(now, hour, minute)
    month = found.group("month").lower()
    if month not in MONTHS:
        return None
    moment = now.replace(
        year=int(found.group("year")),
        month=MONTHS.index(month) + 1,
        day=int(found.group("day")),
        hour=hour,
        minute=minute,
        second=0,
        microsecond=0,
    )
    return moment.timestamp()


def _next(now: datetime, hour: int, minute: int) -> float:
    """The next time the clock reads hour:minute, today or tomorrow."""
    moment = now.replace(hour=hour, minute=minute, second=0, microsecond=0)
    if moment <= now:
        moment += timedelta(days=1)
    return moment.timestamp()


def _zone(name: str | None) -> ZoneInfo | None:
    if not name:
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None
