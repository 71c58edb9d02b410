"""The configuration: each kind of mistake gives one line naming the file and the key."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conveyor.cli.config_load import ConfigError, load_config, parse_config

GOOD = """
repo = "octo/widgets"
base = "main"
allowed_users = ["alice"]

[account]
login = "conveyor-bot"
token_env = "CONVEYOR_TOKEN"

[commands]
test = "pytest -q"
"""


def errors_of(text: str) -> list[str]:
    """The error lines of loading `text`, without their line numbers (`conf.toml:7: ...` is
    `conf.toml: ...` here; test_config_load pins the numbers)."""
    with pytest.raises(ConfigError) as caught:
        parse_config(text, "conf.toml")
    return [re.sub(r"^conf\.toml:\d+:", "conf.toml:", line) for line in caught.value.lines]


def test_a_good_config_loads_with_the_reference_defaults() -> None:
    """Defaults come from REQUIREMENTS §60 (and the issue's 2M ceiling)."""
    config = parse_config(GOOD, "conf.toml")
    assert config.limits.max_fix_rounds == 2
    assert config.limits.issue_token_ceiling == 2_000_000
    assert config.budgets.spec == 300_000
    assert config.repo_dirname == "octo__widgets"


def test_a_config_without_allowed_users_is_refused() -> None:
    """TRUST-1: there is no default set of trusted people."""
    text = GOOD.replace('allowed_users = ["alice"]\n', "")
    assert errors_of(text) == ["conf.toml: allowed_users: required key is missing"]


def test_an_empty_allowed_users_is_refused() -> None:
    """An empty list trusts nobody and is a mistake, not a setting."""
    text = GOOD.replace('["alice"]', "[]")
    (line,) = errors_of(text)
    assert line.startswith("conf.toml: allowed_users: ")


def test_an_unknown_key_is_named() -> None:
    """A typo in a key is an error, not silently ignored."""
    text = GOOD + "\n[limits]\nmax_fix_round = 3\n"
    assert errors_of(text) == [
        "conf.toml: limits.max_fix_round: unknown key; did you mean `max_fix_rounds`?"
    ]


def test_a_wrong_type_names_the_key_and_what_was_expected() -> None:
    """A string where a number belongs."""
    text = GOOD + '\n[limits]\nmax_fix_rounds = "two"\n'
    (line,) = errors_of(text)
    assert line.startswith("conf.toml: limits.max_fix_rounds: ")
    assert "integer" in line


def test_two_token_sources_are_refused() -> None:
    """The account's token comes from exactly one place."""
    text = GOOD.replace('token_env = "CONVEYOR_TOKEN"', 'token_env = "A"\ntoken_file = "/x"')
    (line,) = errors_of(text)
    assert line.startswith("conf.toml: account: ")
    assert "exactly one" in line


def test_on_request_with_a_github_app_account_is_refused_and_with_a_token_loads() -> None:
    """GitHub cannot request an App's review: `on_request` would never fire, so it is an error
    naming the key; with a user account's token it loads."""
    app = (
        '[account.app]\nid = 1\nprivate_key_file = "/k.pem"\ninstallation_id = 2\n'
        'slug = "conveyor"\n'
    )
    text = GOOD.replace('token_env = "CONVEYOR_TOKEN"\n', "") + app
    asked = "\n[pr_reviews]\non_request = true\n"
    (line,) = errors_of(text + asked)
    assert line.startswith("conf.toml: pr_reviews: ")
    assert "App" in line
    assert parse_config(text, "conf.toml").pr_reviews.on_request is False
    assert parse_config(GOOD + asked, "conf.toml").pr_reviews.on_request is True


def test_a_bad_slug_is_refused() -> None:
    """The repository is OWNER/NAME."""
    (line,) = errors_of(GOOD.replace("octo/widgets", "widgets"))
    assert line.startswith("conf.toml: repo: ")


def test_toml_syntax_errors_name_the_file() -> None:
    """Broken TOML is one line with the file name."""
    (line,) = errors_of("repo = ")
    assert line.startswith("conf.toml: not valid TOML")


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    """A config path that does not exist."""
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path / "nope.toml")
    assert caught.value.lines == [f"{tmp_path / 'nope.toml'}: no such file"]


def test_a_local_forge_without_its_url_is_refused() -> None:
    """`kind = "local"` never falls back to api.github.com."""
    (line,) = errors_of(GOOD + '\n[forge]\nkind = "local"\n')
    assert line.startswith("conf.toml: forge: ")
    assert "api_url" in line


def test_migration_commands_go_in_pairs() -> None:
    """`commands.migrate_up` without `migrate_down` is one line naming `commands` (CHK-5)."""
    (line,) = errors_of(GOOD + 'migrate_up = "python migrate.py up"\n')
    assert line.startswith("conf.toml: commands: ")
    assert "migrate_down" in line
    both = GOOD + 'migrate_up = "m up"\nmigrate_down = "m down"\n'
    commands = parse_config(both, "conf.toml").commands
    assert (commands.migrate_up, commands.migrate_down) == ("m up", "m down")
