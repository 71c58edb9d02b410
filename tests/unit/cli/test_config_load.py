"""`load_or_exit`, the one way commands load their config: the config and its path, or a line
per mistake naming the file and the key, and the command's exit code."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from conveyor.cli.app import app
from conveyor.cli.config_load import load_or_exit

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


def test_a_good_config_comes_back_with_the_path_as_named_and_resolved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A relative --config is kept as named; `resolved` is the absolute file."""
    (tmp_path / "conf.toml").write_text(GOOD, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    loaded = load_or_exit(Path("conf.toml"))
    assert (loaded.config.repo, loaded.path, loaded.resolved) == (
        "octo/widgets",
        Path("conf.toml"),
        tmp_path.resolve() / "conf.toml",
    )


def test_each_mistake_is_a_line_naming_the_file_and_key_and_the_exit_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two wrong keys: two lines on stderr, each `FILE: KEY: ...`; exit code 2 by default."""
    bad = tmp_path / "bad.toml"
    bad.write_text(GOOD.replace('base = "main"', 'base = "main"\nbogus = 1') + "\n[limits]\n"
                   "max_fix_rounds = 'two'\n", encoding="utf-8")  # fmt: skip
    with pytest.raises(typer.Exit) as caught:
        load_or_exit(bad)
    assert caught.value.exit_code == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2
    assert all(line.startswith(f"{bad}: ") for line in lines)
    assert {line.split(": ")[1] for line in lines} == {"bogus", "limits.max_fix_rounds"}


def test_a_missing_file_or_no_config_at_all_is_one_line_and_the_command_s_own_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`config check` exits 1, not 2: the code is the command's; the message says what to do."""
    with pytest.raises(typer.Exit) as caught:
        load_or_exit(tmp_path / "nope.toml", code=1)
    assert caught.value.exit_code == 1
    assert capsys.readouterr().err == f"{tmp_path / 'nope.toml'}: no such file\n"
    monkeypatch.delenv("CONVEYOR_CONFIG", raising=False)
    with pytest.raises(typer.Exit):
        load_or_exit(None)
    assert "--config PATH or set CONVEYOR_CONFIG" in capsys.readouterr().err


def test_a_command_s_own_report_gets_the_lines_instead_of_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`doctor` shows the mistakes as failed checks: its report gets them, stderr stays empty."""
    got: list[str] = []
    with pytest.raises(typer.Exit):
        load_or_exit(tmp_path / "nope.toml", report=got.extend)
    assert (got, capsys.readouterr().err) == ([f"{tmp_path / 'nope.toml'}: no such file"], "")


@pytest.mark.parametrize(
    ("args", "code"),
    [(["status"], 2), (["cost"], 2), (["resume", "--issue", "1"], 2), (["config", "check"], 1)],
)
def test_every_command_names_the_file_and_key_and_exits_with_its_code(
    tmp_path: Path, args: list[str], code: int
) -> None:
    """Through the typer app: the same line on stderr whichever command loads the config."""
    bad = tmp_path / "bad.toml"
    bad.write_text(GOOD.replace('test = "pytest -q"', 'test = "pytest -q"\nlint = 3'))
    done = CliRunner().invoke(app, [*args, "--config", str(bad)])
    assert done.exit_code == code, done.output
    assert done.stderr.splitlines() == [f"{bad}: commands.lint: expected a valid string, got 3"]


def test_an_unchanged_file_is_parsed_once_and_an_edited_one_again(tmp_path: Path) -> None:
    """A job forked from the process that loaded the config takes that `Config`; an edit is
    read (the text is what counts, not the path nor its time stamp)."""
    path = tmp_path / "conf.toml"
    path.write_text(GOOD, encoding="utf-8")
    first = load_or_exit(path).config
    assert load_or_exit(path).config is first
    path.write_text(GOOD.replace('"pytest -q"', '"pytest -x"'), encoding="utf-8")
    edited = load_or_exit(path).config
    assert (edited.commands.test, first.commands.test) == ("pytest -x", "pytest -q")
    path.write_text("not = [toml", encoding="utf-8")
    with pytest.raises(typer.Exit):
        load_or_exit(path)
