"""`conveyor config check`: the resolved configuration with secrets hidden, or its errors."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conveyor.cli.app import app

GOOD = """
repo = "octo/widgets"
allowed_users = ["alice"]

[forge]
kind = "local"
api_url = "http://127.0.0.1:8123/"

[account]
login = "conveyor-bot"
token_env = "CONVEYOR_TEST_TOKEN"

[commands]
test = "pytest -q"
"""

MISTAKES = {
    "unknown key": (
        "[limits]\nmax_job = 3\n",
        "conf.toml: limits.max_job: unknown key; did you mean `max_jobs`?",
    ),
    "missing key": (None, "conf.toml: allowed_users: required key is missing"),
    "wrong type": ("[limits]\nmax_jobs = 'two'\n", "conf.toml: limits.max_jobs: expected"),
    "bad enum": ("", "conf.toml: forge.kind: expected 'github' or 'local', got 'gitlab'"),
    "bad url": ("", "conf.toml: forge.api_url: expected an http:// or https:// URL"),
    "no token source": ("", "conf.toml: account: expected exactly one of"),
    "list expected": ("", "conf.toml: allowed_users: expected a list, got 'alice'"),
}


def _text(kind: str) -> str:
    """GOOD with the mistake `kind` made in it."""
    extra, _ = MISTAKES[kind]
    text = {
        "missing key": GOOD.replace('allowed_users = ["alice"]\n', ""),
        "bad enum": GOOD.replace('kind = "local"', 'kind = "gitlab"'),
        "bad url": GOOD.replace("http://127.0.0.1:8123/", "127.0.0.1:8123"),
        "no token source": GOOD.replace('token_env = "CONVEYOR_TEST_TOKEN"\n', ""),
        "list expected": GOOD.replace('["alice"]', '"alice"'),
    }.get(kind, GOOD)
    return text + (extra or "")


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Never resolve the real home; no config from the outside environment."""
    monkeypatch.setenv("CONVEYOR_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CONVEYOR_CONFIG", raising=False)
    monkeypatch.setenv("CONVEYOR_TEST_TOKEN", "ghp_secret-value-never-shown")
    monkeypatch.setenv("HOME", str(tmp_path / "user"))  # no ~/.config/conveyor to find


def _check(tmp_path: Path, text: str, *args: str) -> tuple[int, str, str]:
    """Run `conveyor config check` on `text` written to conf.toml; (exit code, stdout, stderr
    with each line's number after `conf.toml:` left out: test_config_load pins those)."""
    (tmp_path / "conf.toml").write_text(text)
    result = CliRunner().invoke(app, ["config", "check", *args])
    err = re.sub(r"conf\.toml:\d+:", "conf.toml:", result.stderr)
    return result.exit_code, result.stdout, err


@pytest.mark.parametrize("kind", sorted(MISTAKES))
def test_each_kind_of_mistake_is_one_line_naming_file_key_and_expectation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    """Exit 2 (a config mistake, for every command), nothing on stdout, one line per mistake."""
    monkeypatch.chdir(tmp_path)
    code, out, err = _check(tmp_path, _text(kind), "--config", "conf.toml")
    assert code == 2
    assert out == ""
    (line,) = err.splitlines()
    assert line.startswith(MISTAKES[kind][1])


def test_a_good_config_prints_resolved_without_the_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Defaults filled in, the URL normalised, the home resolved, the token value absent."""
    monkeypatch.chdir(tmp_path)
    code, out, _ = _check(tmp_path, GOOD, "--config", "conf.toml")
    assert code == 0
    assert "ghp_secret-value-never-shown" not in out
    shown = json.loads(out)
    assert shown["forge"] == {"kind": "local", "api_url": "http://127.0.0.1:8123"}
    assert shown["account"]["token_env"].startswith("CONVEYOR_TEST_TOKEN")
    assert shown["limits"]["max_fix_rounds"] == 2
    assert shown["home"] == str(tmp_path / "home")


def test_conveyor_config_names_the_file_when_no_option_is_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`CONVEYOR_CONFIG` stands in for `--config`; with neither, the error says how to give one."""
    code, _, err = _check(tmp_path, GOOD)
    assert code == 2
    assert "--config" in err
    assert "CONVEYOR_CONFIG" in err
    monkeypatch.setenv("CONVEYOR_CONFIG", str(tmp_path / "conf.toml"))
    code, out, _ = _check(tmp_path, GOOD)
    assert code == 0
    assert json.loads(out)["repo"] == "octo/widgets"


def test_the_home_key_wins_over_the_variable_which_wins_over_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`home` in the file, else `$CONVEYOR_HOME`, else ~/.local/share/conveyor."""
    path = str(tmp_path / "conf.toml")
    keyed = f'home = "{tmp_path / "from-key"}"\n' + GOOD
    assert json.loads(_check(tmp_path, keyed, "--config", path)[1])["home"] == str(
        tmp_path / "from-key"
    )
    assert json.loads(_check(tmp_path, GOOD, "--config", path)[1])["home"] == str(tmp_path / "home")
    monkeypatch.delenv("CONVEYOR_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    assert json.loads(_check(tmp_path, GOOD, "--config", path)[1])["home"] == str(
        tmp_path / "user" / ".local" / "share" / "conveyor"
    )


CREDENTIALS = {
    "unset token variable": (
        'token_env = "CONVEYOR_TEST_UNSET"',
        "conf.toml: account.token_env: the environment variable CONVEYOR_TEST_UNSET is not set",
    ),
    "missing token file": (
        'token_file = "no-such-token"',
        "conf.toml: account.token_file: cannot read ",
    ),
    "app key that is not a key": (
        'app = { id = 1, slug = "bot", installation_id = 2, private_key_file = "conf.toml" }',
        "conf.toml: account.app.private_key_file: conf.toml is not a PEM private key",
    ),
}


@pytest.mark.parametrize("kind", sorted(CREDENTIALS))
def test_credentials_that_cannot_be_read_are_one_line_naming_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    """The token's variable, token file or app key file is checked; exit 1 with one line."""
    monkeypatch.chdir(tmp_path)
    source, expected = CREDENTIALS[kind]
    text = GOOD.replace('token_env = "CONVEYOR_TEST_TOKEN"', source)
    code, out, err = _check(tmp_path, text, "--config", "conf.toml")
    assert code == 2
    assert out == ""
    (line,) = err.splitlines()
    assert line.startswith(expected)


def test_a_relative_token_file_is_read_next_to_the_config(tmp_path: Path) -> None:
    """`token_file` relative to the config's folder; the path shows, its content never does."""
    (tmp_path / "token").write_text("ghp_file-secret\n")
    text = GOOD.replace('token_env = "CONVEYOR_TEST_TOKEN"', 'token_file = "token"')
    code, out, _ = _check(tmp_path, text, "--config", str(tmp_path / "conf.toml"))
    assert code == 0
    assert json.loads(out)["account"]["token_file"] == "token"
    assert "ghp_file-secret" not in out


MANY = """
repo = "octo widgets"
allowed_users = []
surprise = 1

[account]

[commands]
test = "pytest"
test_files = "pytest -q"

[limits]
max_jobs = 0
max_job = 3
claim_wait_seconds = [20, 5]
context_soft = 200000
context_hard = 100000

[money]
per_day = -1

[agents.default]
agent = "scripted"
model = 3

[agents.roles.reviewer]
agent = "claude"
"""


def test_every_mistake_of_a_config_is_reported_at_once_each_naming_its_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One run lists every bad key, also the checks of a whole table whose keys are wrong too."""
    monkeypatch.chdir(tmp_path)
    code, out, err = _check(tmp_path, MANY, "--config", "conf.toml")
    assert (code, out) == (2, "")
    keys = [line.removeprefix("conf.toml: ").split(":", 1)[0] for line in err.splitlines()]
    assert sorted(keys) == sorted([
        "repo", "allowed_users", "surprise", "account.login", "account", "commands.test_files",
        "limits.max_jobs", "limits.max_job", "limits.claim_wait_seconds", "limits.context_hard",
        "money.per_day", "agents.default.model", "agents.default", "agents.roles.reviewer",
    ])  # fmt: skip
    (scripted,) = [line for line in err.splitlines() if "agents.default: " in line]
    assert "scenario" in scripted
    (tokens,) = [line for line in err.splitlines() if "account: " in line]
    assert "token_env" in tokens


def test_context_soft_above_the_default_hard_limit_is_a_mistake(tmp_path: Path) -> None:
    """The hard limit left out still bounds the soft one."""
    text = GOOD + "[limits]\ncontext_soft = 200000\n"
    code, _, err = _check(tmp_path, text, "--config", str(tmp_path / "conf.toml"))
    assert code == 2
    assert "limits.context_hard: expected at least context_soft (200000)" in err


def test_a_config_inside_a_repository_is_refused_naming_the_path_and_why(tmp_path: Path) -> None:
    """Agents edit the repository: a config there is refused, its own mistakes listed too."""
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=30)
    path = repo / "conf.toml"
    path.write_text(GOOD)
    done = CliRunner().invoke(app, ["config", "check", "--config", str(path)])
    assert (done.exit_code, done.stdout) == (2, "")
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"{path}: inside the git repository {repo.resolve()}")
    assert "agents could change the rules that judge their work" in line
    path.write_text(GOOD + "surprise = 1\n")
    both = CliRunner().invoke(app, ["config", "check", "--config", str(path)])
    assert both.exit_code == 2
    assert [line.split(": ", 2)[1] for line in both.stderr.splitlines()] == [
        "inside the git repository " + str(repo.resolve()) + "; agents could change the rules"
        " that judge their work",
        "commands.surprise",
    ]


def test_doctor_lists_the_place_and_the_mistakes_of_a_config_inside_a_repository(
    tmp_path: Path,
) -> None:
    """Before any forge call: each mistake is a failed config check, the place first."""
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=30)
    path = repo / "conf.toml"
    path.write_text(GOOD + "surprise = 1\n")
    done = CliRunner().invoke(app, ["doctor", "--config", str(path), "--json"])
    assert done.exit_code == 2
    report = json.loads(done.stdout)
    assert report["failed"] == ["config"]
    details = [check["detail"] for check in report["checks"]]
    assert details[0].startswith(f"{path}: inside the git repository {repo.resolve()}")
    assert details[1] == f"{path}:15: commands.surprise: unknown key"
