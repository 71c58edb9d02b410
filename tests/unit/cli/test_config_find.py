"""Which config a command reads when none is named (issue 48), and how hints name it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conveyor.cli.config_find import NoConfig, find_config, user_config
from conveyor.core.config_hint import config_flag


def _write(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("repo = 'a/b'\n", encoding="utf-8")
    return path


def test_the_order_is_option_then_variable_then_local_file_then_the_user_s_own(
    tmp_path: Path,
) -> None:
    """Each place wins over every place after it; the first that exists is read."""
    home, cwd = tmp_path / "home", tmp_path / "work"
    mine = _write(user_config(home))
    cwd.mkdir()
    assert find_config(None, {}, cwd, home) == mine
    _write(cwd / "conveyor.toml")
    assert find_config(None, {}, cwd, home) == Path("conveyor.toml")
    env = {"CONVEYOR_CONFIG": "/etc/c.toml"}
    assert find_config(None, env, cwd, home) == Path("/etc/c.toml")
    assert find_config("given.toml", env, cwd, home) == Path("given.toml")


def test_nothing_found_says_every_place_it_looked(tmp_path: Path) -> None:
    """The message names the option, the variable and both files."""
    with pytest.raises(NoConfig) as caught:
        find_config(None, {"CONVEYOR_CONFIG": ""}, tmp_path, tmp_path)
    assert str(caught.value) == (
        "no configuration: pass --config PATH, set CONVEYOR_CONFIG, or write ./conveyor.toml or"
        " ~/.config/conveyor/conveyor.toml (`conveyor init` writes the latter)"
    )


def test_a_local_conveyor_toml_inside_a_git_repository_is_refused_not_read(
    tmp_path: Path,
) -> None:
    """Agents edit that tree: a config found there would let them rewrite its rules."""
    repo = tmp_path / "project"
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=30)
    _write(repo / "conveyor.toml")
    _write(user_config(tmp_path / "home"))
    with pytest.raises(NoConfig, match="inside the git repository"):
        find_config(None, {}, repo, tmp_path / "home")


def test_hints_leave_out_the_option_only_for_the_user_s_own_config(tmp_path: Path) -> None:
    """Found from any folder: no --config; any other file is named (quoted for a shell)."""
    home = tmp_path / "home"
    mine = _write(user_config(home))
    assert config_flag(mine, home) == ""
    assert (
        config_flag(tmp_path / "my widgets.toml", home) == f" --config '{tmp_path}/my widgets.toml'"
    )
