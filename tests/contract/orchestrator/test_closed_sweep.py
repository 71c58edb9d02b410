"""The sweep of closed issues leaves an issue a person closed alone and costs idle ticks nothing."""

from __future__ import annotations

from pathlib import Path

from conveyor.emulator.app.server import ForgeServer
from conveyor.testing.world import World
from tests.e2e.helpers import spec_ready, triage


def test_an_issue_a_person_closed_mid_work_is_left_as_it_is_and_idle_ticks_stay_one_request(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """Closed while working with its PR open: no close-out, no merged label, and once it is
    settled a tick on the idle repository is one 304 again."""
    world = World.create(forge_server, tmp_path / "world")
    world.write_scenario([triage("closedmid"), spec_ready("closedmid")])
    issue = world.open_issue("Add a stock total [closedmid]", "Sum the quantities.")
    assert world.drive(issue.number, through="spec").returncode == 0
    world.forge_as("alice").close_issue(issue.number, "not_planned")
    first = world.run("tick")
    assert first.returncode == 0, first.stderr
    assert "agent:working" in world.labels(issue.number)
    assert "close-out" not in first.stdout + first.stderr
    pr = world.pr(issue.number)
    assert pr is not None
    assert pr.state == "open"
    before = forge_server.stats()
    second = world.run("tick")
    after = forge_server.stats()
    assert second.returncode == 0, second.stderr
    assert after["requests"] - before["requests"] == 1
