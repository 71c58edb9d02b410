"""A real CLI installed but not signed in: the agent pauses, no issue is charged or stopped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conveyor.core.labels import STOP_PREFIX
from conveyor.core.state import Stage
from conveyor.emulator.app.server import ForgeServer
from conveyor.testing.world import World
from tests.contract.realcli.clis import cli_path

pytestmark = [pytest.mark.e2e, pytest.mark.realcli]
LIMITS = {"claim_wait_seconds": [0, 0], "max_jobs": 2, "poll_seconds": 1}


def test_a_signed_out_claude_pauses_its_starts_and_stops_no_issue(
    clis_bin: Path, forge_server: ForgeServer, tmp_path: Path
) -> None:
    """Issue 14's new user: one line says why, nothing is charged, doctor names the sign-in."""
    agent = {"agent": "claude", "model": "sonnet", "executable": str(cli_path(clis_bin, "claude"))}
    world = World.create(
        forge_server,
        tmp_path / "world",
        config={
            "limits": {"claim_wait_seconds": [0, 0], "max_jobs": 2},
            "agents": {"default": agent},
        },
    )
    numbers = [world.open_issue(f"Change {n}", "Something small.").number for n in range(3)]
    ran = world.run("run", "--until-idle", timeout=300)
    assert ran.returncode == 0, ran.stdout + ran.stderr

    for number in numbers:
        assert not [label for label in world.labels(number) if label.startswith(STOP_PREFIX)]
        state = world.state(number)
        if state is not None:
            assert (state.stage, state.rounds.triage_attempts, state.charges) == (
                Stage.TRIAGE, 0, ()
            )  # fmt: skip
    sessions = list((world.repo_home / "jobs").glob("*/sessions/*/result.json"))
    assert 1 <= len(sessions) <= 2, "at most one session per job slot before the pause"
    log = (world.repo_home / "orchestrator.log").read_text()
    pauses = [line for line in log.splitlines() if "pause agent-auth" in line]
    assert len(pauses) == 1, log
    assert "claude is not signed in" in pauses[0]
    status = json.loads((world.repo_home / "status.json").read_text())
    assert [p["kind"] for p in status["pauses"]] == ["agent-auth"]
    shown = world.run("status")
    assert "agent-auth" in shown.stdout, shown.stdout

    doctor = world.run("doctor")
    assert doctor.returncode == 1
    assert "FAIL agent claude sign-in: not signed in" in doctor.stdout, doctor.stdout
