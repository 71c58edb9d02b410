"""`contrib/systemd/conveyor.service`: a user unit whose ExecStart is a `conveyor run` the CLI
accepts, with the config outside any repository, restarted when it fails."""

from __future__ import annotations

import configparser
import shlex
from pathlib import Path

from typer.testing import CliRunner

from conveyor.cli.app import app

UNIT = Path(__file__).resolve().parents[2] / "contrib" / "systemd" / "conveyor.service"
runner = CliRunner()


def _unit() -> configparser.ConfigParser:
    """The unit file's sections (systemd's syntax is INI's, with `#` comments)."""
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys keep their case
    parser.read_string(UNIT.read_text(encoding="utf-8"))
    return parser


def _exec_start() -> list[str]:
    return shlex.split(_unit()["Service"]["ExecStart"])


def test_the_unit_runs_conveyor_run_with_a_config_outside_the_repository() -> None:
    """`%h/.local/bin/conveyor run --config %h/.config/…`: the user's config folder, no repo."""
    argv = _exec_start()
    assert Path(argv[0]).name == "conveyor"
    assert argv[0].startswith("%h/")
    assert argv[1] == "run"
    config = argv[argv.index("--config") + 1]
    assert config.startswith("%h/.config/conveyor/")


def test_the_unit_restarts_on_failure_and_starts_with_the_user_s_session() -> None:
    """A crash restarts it; it is a user unit (default.target), stopped by signalling `run`."""
    unit = _unit()
    assert unit["Service"]["Restart"] == "on-failure"
    # Issue 48: a config mistake (exit 2 from every command) is not retried every 30 s.
    assert unit["Service"]["RestartPreventExitStatus"] == "2"
    assert unit["Service"]["KillMode"] == "process"
    assert unit["Install"]["WantedBy"] == "default.target"


def test_the_cli_accepts_the_unit_s_command_and_its_flags() -> None:
    """`conveyor run` with the unit's flags and `--help` exits 0; a flag it lacks would not."""
    args = [part.replace("%h", "/home/someone") for part in _exec_start()[1:]]
    accepted = runner.invoke(app, [*args, "--help"])
    assert accepted.exit_code == 0, accepted.output
    refused = runner.invoke(app, [*args, "--no-such-flag", "--help"])
    assert refused.exit_code != 0
