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


def test_each_mistake_is_a_line_naming_the_file_line_and_key_and_the_exit_is_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two wrong keys: two lines on stderr, each `FILE:LINE: KEY: ...`, in file order; exit 2."""
    bad = tmp_path / "bad.toml"
    bad.write_text(GOOD.replace('base = "main"', 'base = "main"\nbogus = 1') + "\n[limits]\n"
                   "max_fix_rounds = 'two'\n", encoding="utf-8")  # fmt: skip
    with pytest.raises(typer.Exit) as caught:
        load_or_exit(bad)
    assert caught.value.exit_code == 2
    lines = capsys.readouterr().err.splitlines()
    assert [line.split(": ")[0] for line in lines] == [f"{bad}:4", f"{bad}:15"]
    assert [line.split(": ")[1] for line in lines] == ["bogus", "limits.max_fix_rounds"]


def test_a_missing_file_or_no_config_at_all_is_one_line_saying_where_it_looked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file named, or every place a config is looked for; exit 2 either way."""
    with pytest.raises(typer.Exit) as caught:
        load_or_exit(tmp_path / "nope.toml")
    assert caught.value.exit_code == 2
    assert capsys.readouterr().err == f"{tmp_path / 'nope.toml'}: no such file\n"
    monkeypatch.delenv("CONVEYOR_CONFIG", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(typer.Exit):
        load_or_exit(None)
    assert capsys.readouterr().err == (
        "no configuration: pass --config PATH, set CONVEYOR_CONFIG, or write ./conveyor.toml"
        " or ~/.config/conveyor/conveyor.toml (`conveyor init` writes the latter)\n"
    )


def test_a_command_s_own_report_gets_the_lines_instead_of_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`doctor` shows the mistakes as failed checks: its report gets them, stderr stays empty."""
    got: list[str] = []
    with pytest.raises(typer.Exit):
        load_or_exit(tmp_path / "nope.toml", report=got.extend)
    assert (got, capsys.readouterr().err) == ([f"{tmp_path / 'nope.toml'}: no such file"], "")


@pytest.mark.parametrize(
    "args",
    [
        ["status"], ["cost"], ["live"], ["resume", "--issue", "1"], ["config", "check"],
        ["doctor"], ["run"], ["tick"], ["drive", "--issue", "1"], ["transcript", "--issue", "1"],
    ],
)  # fmt: skip
def test_every_command_names_the_mistakes_and_exits_2(
    tmp_path: Path, args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the typer app: the same lines whichever command loads the config, and the same
    exit code (issue 48: config check and doctor exited 1, run and status 2)."""
    monkeypatch.setenv("CONVEYOR_TOKEN", "t")
    bad = tmp_path / "bad.toml"
    bad.write_text(GOOD.replace('test = "pytest -q"', 'test = "pytest -q"\nlint = 3'))
    done = CliRunner().invoke(app, [*args, "--config", str(bad)])
    assert done.exit_code == 2, done.output
    expected = f"{bad}:12: commands.lint: expected a valid string, got 3"
    assert expected in done.stderr + done.stdout  # doctor shows it as its failed `config` check


def test_the_unset_token_is_named_with_the_schema_mistakes_in_one_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A command that reaches the forge lists the token beside the other mistakes, at its line."""
    monkeypatch.delenv("CONVEYOR_TOKEN", raising=False)
    bad = tmp_path / "bad.toml"
    bad.write_text(GOOD.replace('test = "pytest -q"', 'test = "pytest -q"\nlint = 3'))
    with pytest.raises(typer.Exit):
        load_or_exit(bad, credentials=True)
    assert capsys.readouterr().err.splitlines() == [
        f"{bad}:8: account.token_env: the environment variable CONVEYOR_TOKEN is not set",
        f"{bad}:12: commands.lint: expected a valid string, got 3",
    ]


def test_an_unknown_key_gets_the_nearest_name_or_the_table_it_belongs_under(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A typo gets the close key beside it; a key of another table names that table; a word
    outside its choices gets the nearest one."""
    bad = tmp_path / "bad.toml"
    text = (
        GOOD + "\n[limits]\nmax_job = 3\n[money]\nper_dya = 3\n[agents.default]\nagent = 'claud'\n"
    )
    bad.write_text(text.replace("[account]", "poll_seconds = 5\n[account]"), encoding="utf-8")
    with pytest.raises(typer.Exit):
        load_or_exit(bad)
    assert capsys.readouterr().err.splitlines() == [
        f"{bad}:6: poll_seconds: unknown key at the top level; did you mean limits.poll_seconds?",
        f"{bad}:15: limits.max_job: unknown key; did you mean `max_jobs`?",
        f"{bad}:17: money.per_dya: unknown key; did you mean `per_day`?",
        f"{bad}:19: agents.default.agent: expected 'claude', 'codex', 'opencode' or 'scripted',"
        " got 'claud'; did you mean 'claude'?",
    ]


def test_a_required_key_under_the_wrong_table_is_one_mistake(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`test` written under [agents.default] with no [commands]: one line, not "unknown key"
    there and "commands: required key is missing" elsewhere."""
    bad = tmp_path / "bad.toml"
    bad.write_text(GOOD.replace("[commands]", "[agents.default]"), encoding="utf-8")
    with pytest.raises(typer.Exit):
        load_or_exit(bad)
    assert capsys.readouterr().err.splitlines() == [
        f"{bad}:11: agents.default.test: belongs under [commands], not [agents.default]"
        " (commands.test is required)"
    ]


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
