"""One `repo_home` for jobs and readers: `~` expanded, a relative `home` beside the config (#50)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.cli.config_load import LoadedConfig, parse_config, repo_home
from conveyor.job import layout

CONFIG = """
repo = "octo/widgets"
allowed_users = ["alice"]
{home}

[account]
login = "conveyor-bot"
token_env = "CONVEYOR_TOKEN"

[commands]
test = "pytest -q"
"""


def _home(home: str | None, environ: dict[str, str], config_dir: Path) -> Path:
    line = "" if home is None else f"home = {home!r}"
    config = parse_config(CONFIG.format(home=line), "conveyor.toml")
    return layout.repo_home(config, environ, config_dir)


@pytest.mark.parametrize(
    ("home", "variable", "expected"),
    [
        ("~/x", None, "user/x"),
        ("~", None, "user"),
        ("state", None, "config/state"),
        ("/srv/conveyor", None, "/srv/conveyor"),
        (None, "~/y", "user/y"),
        (None, "/var/conveyor", "/var/conveyor"),
        (None, None, "user/.local/share/conveyor"),
    ],
)
def test_the_home_is_the_config_key_then_the_variable_then_the_default_with_tilde_expanded(
    tmp_path: Path, home: str | None, variable: str | None, expected: str
) -> None:
    """`home = "~/x"` is under the owner's HOME, never a folder named `~`; a relative key lies
    in the config's folder, as `account.token_file` does."""
    environ = {"HOME": str(tmp_path / "user")}
    if variable is not None:
        environ["CONVEYOR_HOME"] = variable
    found = _home(home, environ, tmp_path / "config")
    assert found == tmp_path / expected / "octo__widgets"
    assert "~" not in found.parts


def test_the_readers_find_the_folder_the_jobs_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`status`, `cost`, `live` and `transcript` take their folder from the job's layout, from
    wherever they run."""
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "config" / "conveyor.toml"
    path.parent.mkdir()
    path.write_text(CONFIG.format(home='home = "~/x"'))
    config = parse_config(path.read_text(), str(path))
    loaded = LoadedConfig(config, Path("config/conveyor.toml"), path)
    job = layout.repo_home(config, {"HOME": str(tmp_path / "user")}, path.parent)
    assert repo_home(loaded) == job == tmp_path / "user" / "x" / "octo__widgets"
