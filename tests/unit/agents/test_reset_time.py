"""A usage limit's reset, read from what the CLIs say (BB-PAUSE-7)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from conveyor.agents.backends.base import StreamState
from conveyor.agents.backends.reset_time import reset_after

NOW = datetime(2026, 12, 1, 19, 10, tzinfo=UTC)
CODEX = (
    "You\u2019ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit "
    "https://chatgpt.com/settings/usage to purchase more credits or try again at {when}."
)


def test_codex_names_a_time_today_or_a_date_when_further() -> None:
    """`at 8:10 PM` is the next 20:10 local; `at Dec 3rd, 2026 8:10 PM` is that day."""
    assert reset_after(CODEX.format(when="8:10 PM"), NOW) == NOW.replace(hour=20).timestamp()
    tomorrow = NOW.replace(hour=7, minute=5) + timedelta(days=1)
    assert reset_after(CODEX.format(when="7:05 AM"), NOW) == tomorrow.timestamp()
    later = datetime(2026, 12, 3, 20, 10, tzinfo=UTC)
    assert reset_after(CODEX.format(when="Dec 3rd, 2026 8:10 PM"), NOW) == later.timestamp()
    assert reset_after("Try again at Dec 3, 2026 8:10 PM.", NOW) == later.timestamp()


def test_the_time_is_read_in_the_local_zone_the_cli_wrote_it_in() -> None:
    """The CLI and the job share TZ: 8:10 PM at UTC+2 is 18:10 UTC."""
    local = NOW.astimezone(timezone(timedelta(hours=2)))
    assert reset_after(CODEX.format(when="10:10 PM"), local) == NOW.replace(hour=20).timestamp()


def test_claude_and_plain_durations_are_read_too() -> None:
    """`resets 11pm (UTC)` and `try again in 2 hours 30 minutes`."""
    said = "You've hit your limit \u00b7 resets 11pm (UTC)"
    assert reset_after(said, NOW) == NOW.replace(hour=23, minute=0).timestamp()
    wait = reset_after("Rate limited: try again in 2 hours 30 minutes", NOW)
    assert wait == (NOW + timedelta(hours=2, minutes=30)).timestamp()
    assert reset_after("exceeded retry limit, last status: 429 Too Many Requests", NOW) is None


def test_a_stream_error_naming_a_limit_and_its_reset_sets_both() -> None:
    """The parser's state marks the limit and keeps the reset it could read."""
    state = StreamState()
    state.note_error("Claude AI usage limit reached|1900000000")
    assert (state.rate_limited, state.rate_limit_reset) == (True, 1_900_000_000.0)
