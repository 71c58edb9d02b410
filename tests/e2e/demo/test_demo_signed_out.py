"""`conveyor demo --agent claude` with claude installed but not signed in (issue 14)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from conveyor.job.entry import conveyor_argv
from tests.contract.realcli.clis import cli_path
from tests.contract.realcli.conftest import clis_bin

__all__ = ["clis_bin"]
pytestmark = [pytest.mark.e2e, pytest.mark.realcli]


def test_the_demo_with_a_signed_out_cli_exits_1_saying_why_and_stops_nothing(
    clis_bin: Path, tmp_path: Path
) -> None:
    """No issue moved: exit 1, the pause's line; no issue stopped, a session per job slot."""
    home = tmp_path / "user-home"
    home.mkdir()
    env = {k: v for k in ("PATH", "LANG", "TMPDIR") if (v := os.environ.get(k)) is not None}
    env |= {"HOME": str(home), "CONVEYOR_CLAUDE_EXECUTABLE": str(cli_path(clis_bin, "claude"))}
    data = tmp_path / "data"
    argv = [*conveyor_argv(), "demo", "--agent", "claude", "--no-serve", "--data", str(data)]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "no issue moved: agent-auth: claude is not signed in" in done.stdout, done.stdout
    assert "stopped (" not in done.stdout, "no issue was stopped"
    sessions = list(data.glob("conveyor/home/*/jobs/*/sessions/*/result.json"))
    assert 1 <= len(sessions) <= 3, "one session per job slot, then the pause"
