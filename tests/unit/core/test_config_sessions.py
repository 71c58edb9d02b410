"""`[sessions]`: each role's turn cap, effort and timeout, a role's keys over the default's."""

from __future__ import annotations

import pytest

from conveyor.cli.config_load import ConfigError, parse_config
from conveyor.core.config_sessions import role_sessions
from conveyor.core.config_terms import Role

GOOD = """
repo = "octo/widgets"
allowed_users = ["alice"]

[account]
login = "conveyor-bot"
token_env = "CONVEYOR_TOKEN"

[commands]
test = "pytest -q"
"""


def test_a_role_s_keys_win_over_the_default_s_key_by_key() -> None:
    """The default sets every role's cap and effort; implement overrides its effort and time."""
    text = GOOD + (
        '\n[sessions.default]\nmax_turns = 80\neffort = "medium"\n'
        '\n[sessions.roles.implement]\neffort = "high"\ntimeout_minutes = 90\n'
    )
    config = parse_config(text, "conf.toml")
    implement = role_sessions(config.sessions, Role.IMPLEMENT, 45)
    assert (implement.max_turns, implement.effort, implement.timeout_seconds) == (80, "high", 5400)
    review = role_sessions(config.sessions, Role.REVIEW, 45)
    assert (review.max_turns, review.effort, review.timeout_seconds) == (80, "medium", 2700)


def test_without_the_section_sessions_are_uncapped_with_the_limits_timeout() -> None:
    """No `[sessions]`: no cap, no effort flag, `limits.session_timeout_minutes`."""
    config = parse_config(GOOD, "conf.toml")
    got = role_sessions(config.sessions, Role.TRIAGE, config.limits.session_timeout_minutes)
    assert (got.max_turns, got.effort, got.timeout_seconds) == (None, None, 45 * 60)


@pytest.mark.parametrize(
    ("table", "key"),
    [
        ('[sessions.roles.spec]\neffort = "extreme"', "sessions.roles.spec.effort"),
        ("[sessions.default]\nmax_turns = 0", "sessions.default.max_turns"),
        ("[sessions.roles.review]\ntimeout_minutes = -1", "sessions.roles.review.timeout_minutes"),
        ("[sessions.roles.reviewer]\nmax_turns = 3", "sessions.roles.reviewer"),
    ],
)
def test_a_bad_value_names_its_key(table: str, key: str) -> None:
    """An unknown effort, a cap of nought, a negative time, a role that does not exist."""
    with pytest.raises(ConfigError) as caught:
        parse_config(GOOD + "\n" + table + "\n", "conf.toml")
    (line,) = caught.value.lines
    assert line.startswith("conf.toml")
    assert f" {key}: " in line
