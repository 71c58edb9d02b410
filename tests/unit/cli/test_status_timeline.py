"""`conveyor status --issue N --timeline`: one bar per job, session and command run, in order."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from conveyor.cli.app import app
from tests.contract.web.timeline_home import EXPECTED, write_jobs


def _config(tmp_path: Path) -> tuple[Path, Path]:
    repo_home = tmp_path / "home" / "acme__inventory"
    repo_home.mkdir(parents=True)
    config = tmp_path / "conveyor.toml"
    config.write_text(
        f'repo = "acme/inventory"\nhome = {json.dumps(str(repo_home.parent))}\n'
        'allowed_users = ["alice"]\n[account]\nlogin = "conveyor-bot"\ntoken_env = "T"\n'
        '[commands]\ntest = "true"\n',
        encoding="utf-8",
    )
    return config, repo_home


def test_the_timeline_shows_each_bar_in_order_with_its_seconds_at_the_terminal_width(
    tmp_path: Path,
) -> None:
    """Jobs oldest first, each with what ran in it; every line fits the 100 columns."""
    config, repo_home = _config(tmp_path)
    write_jobs(repo_home, 5)
    done = CliRunner().invoke(
        app, ["status", "--config", str(config), "--issue", "5", "--timeline"],
        env={"COLUMNS": "100"},
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    lines = done.output.splitlines()
    assert [line.split()[0] for line in lines] == [label for _, label, *_ in EXPECTED] + ["total"]
    assert [line.split()[-2] for line in lines] == [
        f"{end - start:.2f}" for _, _, start, end in EXPECTED
    ] + ["40.00"]
    assert max(len(line) for line in lines) <= 100


def test_a_timeline_needs_an_issue_and_one_with_no_jobs_says_so(tmp_path: Path) -> None:
    """Without --issue it is a usage error; an issue no job ran for is named."""
    config, _ = _config(tmp_path)
    alone = CliRunner().invoke(app, ["status", "--config", str(config), "--timeline"])
    assert alone.exit_code == 2
    assert "--issue N" in alone.output
    empty = CliRunner().invoke(
        app, ["status", "--config", str(config), "--issue", "9", "--timeline"]
    )
    assert empty.exit_code == 1
    assert "--issue 9: no job ran for it" in empty.output
