"""The demo's config: valid, outside the repository, fast polls, no budgets, scripted agent."""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.cli.config_load import load_config
from conveyor.cli.demo.config import REAL_AGENT_DAY_BUDGET, demo_config, write_demo_config


def test_the_demo_config_loads_with_the_demos_limits(tmp_path: Path) -> None:
    """Claim wait 0, 1 s polls, three jobs, the hourly token cap and money budgets off."""
    values = demo_config(
        api_url="http://127.0.0.1:1", home=tmp_path / "home", scenario=tmp_path / "s.json"
    )
    config = load_config(write_demo_config(tmp_path / "conveyor.toml", values))
    limits = config.limits
    assert tuple(limits.claim_wait_seconds) == (0, 0)
    assert (limits.poll_seconds, limits.ci_poll_seconds, limits.max_jobs) == (1, 1, 3)
    assert limits.tokens_per_hour == 0
    assert (config.money.per_session, config.money.per_issue, config.money.per_day) == (
        None,
        None,
        None,
    )
    assert config.agents.default.agent == "scripted"
    assert config.agents.default.scenario == str(tmp_path / "s.json")


def test_a_real_agent_replaces_the_script_under_a_daily_money_budget(tmp_path: Path) -> None:
    """`--agent claude` runs the same issues with claude and a default budget."""
    values = demo_config(
        api_url="http://127.0.0.1:1", home=tmp_path, scenario=tmp_path / "s.json", agent="claude"
    )
    config = load_config(write_demo_config(tmp_path / "conveyor.toml", values))
    assert config.agents.default.agent == "claude"
    assert config.money.per_day == REAL_AGENT_DAY_BUDGET


def test_a_bad_value_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    """The writer validates: a broken config never reaches the orchestrator."""
    values = demo_config(api_url="http://127.0.0.1:1", home=tmp_path, scenario=tmp_path / "s")
    values["repo"] = "not a slug"
    with pytest.raises(ValueError, match="repo"):
        write_demo_config(tmp_path / "conveyor.toml", values)
    assert not (tmp_path / "conveyor.toml").exists()
