"""What a new user touches first: --version, completion, `init`, `doctor --json`, and errors
that are one line naming the problem (a config that is not UTF-8, an unexpected failure)."""

from __future__ import annotations

import json
import os
import subprocess
from importlib.metadata import version
from pathlib import Path

from typer.testing import CliRunner

from conveyor.cli.app import app
from conveyor.cli.config_load import load_config
from conveyor.job.entry import conveyor_argv


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environ = {**os.environ, **(env or {})}
    return subprocess.run(
        [*conveyor_argv(), *args], capture_output=True, text=True, timeout=60, env=environ,
        check=False,
    )  # fmt: skip


def test_version_prints_the_installed_version() -> None:
    """`conveyor --version`."""
    done = CliRunner().invoke(app, ["--version"])
    assert (done.exit_code, done.output.strip()) == (0, f"conveyor {version('conveyor')}")


def test_the_shell_completion_offers_commands_and_sub_commands() -> None:
    """bash completion through the real entry point, top level and inside `forge`."""
    top = _run(env={"_CONVEYOR_COMPLETE": "complete_bash", "COMP_WORDS": "conveyor st",
                    "COMP_CWORD": "1"})  # fmt: skip
    assert "status" in top.stdout.split()
    inner = _run(env={"_CONVEYOR_COMPLETE": "complete_bash", "COMP_WORDS": "conveyor forge se",
                      "COMP_CWORD": "2"})  # fmt: skip
    assert "serve" in inner.stdout.split()


def test_init_writes_a_starter_config_that_loads_and_refuses_to_overwrite(tmp_path: Path) -> None:
    """The file is valid as written; a second `init` changes nothing; a repository is refused."""
    target = tmp_path / "widgets.toml"
    args = ["init", str(target), "--repo", "octo/widgets", "--user", "bob"]
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 0, done.output
    config = load_config(target)
    assert (config.repo, config.allowed_users) == ("octo/widgets", ("bob",))
    # Issue 48: opt-in by label and a daily money cap by default, each saying how to widen it.
    assert (config.intake.labels, config.money.per_day) == (("conveyor",), 10.0)
    text = target.read_text(encoding="utf-8")
    assert "set labels = []" in text
    assert "remove the line for no daily cap" in text
    assert f"conveyor doctor --config {target}" in done.output
    before = target.read_text(encoding="utf-8")
    again = CliRunner().invoke(app, args)
    assert again.exit_code == 1
    assert target.read_text(encoding="utf-8") == before
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=30)
    inside = CliRunner().invoke(app, ["init", str(repo / "sub" / "conveyor.toml")])
    assert inside.exit_code == 1
    assert not (repo / "sub" / "conveyor.toml").exists()


def test_init_takes_an_empty_git_folder_for_no_repository(tmp_path: Path) -> None:
    """codex's sandbox leaves an empty `/tmp/.git` while a session runs: not a repository."""
    (tmp_path / ".git").mkdir()
    target = tmp_path / "conveyor.toml"
    done = CliRunner().invoke(app, ["init", str(target), "--repo", "octo/widgets", "--user", "bob"])
    assert done.exit_code == 0, done.output
    assert target.exists()


def test_a_config_that_is_not_utf8_is_one_line_naming_the_file_and_line(tmp_path: Path) -> None:
    """No traceback: `config check` and `doctor --json` name the file and where."""
    bad = tmp_path / "latin1.toml"
    bad.write_bytes('repo = "a/b"\n# café\n'.encode("latin-1"))
    check = _run("config", "check", "--config", str(bad))
    assert check.returncode == 2  # a config error, as for every command (issue 48)
    assert check.stderr.strip().splitlines() == [f"{bad}:2: not UTF-8 text (byte 18: 0xe9)"]
    doctor = CliRunner().invoke(app, ["doctor", "--config", str(bad), "--json"])
    assert doctor.exit_code == 2
    report = json.loads(doctor.output)
    assert (report["ok"], report["failed"]) == (False, ["config"])
    assert "not UTF-8" in report["checks"][0]["detail"]


def test_an_unexpected_failure_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    """A status file that is a folder: one `error:` line, exit 1."""
    home = tmp_path / "home"
    (home / "acme__inventory" / "status.json").mkdir(parents=True)
    config = tmp_path / "conveyor.toml"
    config.write_text(
        f'repo = "acme/inventory"\nhome = {json.dumps(str(home))}\nallowed_users = ["alice"]\n'
        '[account]\nlogin = "bot"\ntoken_env = "T"\n[commands]\ntest = "true"\n',
        encoding="utf-8",
    )
    done = _run("status", "--config", str(config))
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: IsADirectoryError:")


def test_init_without_a_user_writes_nothing_and_names_the_option(tmp_path: Path) -> None:
    """No invented `alice`: without `--user` the command is refused and no file appears."""
    target = tmp_path / "widgets.toml"
    done = CliRunner().invoke(app, ["init", str(target), "--repo", "octo/widgets"])
    assert done.exit_code == 2
    assert "--user" in done.output
    assert not target.exists()
