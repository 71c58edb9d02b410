"""`conveyor demo`'s refusals: an unknown or missing agent CLI, a data folder already in use."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from conveyor.cli.app import app


def test_an_agent_cli_missing_from_path_is_named_with_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Exit 2 before anything starts, naming the CLI and pointing at `conveyor doctor`."""
    monkeypatch.setenv("PATH", str(tmp_path))
    result = CliRunner().invoke(app, ["demo", "--agent", "codex", "--no-serve"])
    assert result.exit_code == 2
    assert "`codex` CLI is not on PATH" in result.output
    assert "conveyor doctor" in result.output


def test_an_unknown_agent_is_a_usage_error() -> None:
    """Only claude, codex and opencode (or the default script) are accepted."""
    result = CliRunner().invoke(app, ["demo", "--agent", "gpt", "--no-serve"])
    assert result.exit_code == 2
    assert "expected one of claude, codex, opencode" in result.output


def test_a_data_folder_that_is_not_empty_is_refused(tmp_path: Path) -> None:
    """The demo needs a fresh forge: it never mixes with data already there."""
    (tmp_path / "old.sqlite").write_text("x")
    result = CliRunner().invoke(app, ["demo", "--data", str(tmp_path), "--no-serve"])
    assert result.exit_code == 2
    assert "not empty" in result.output
    assert [p.name for p in tmp_path.iterdir()] == ["old.sqlite"]
