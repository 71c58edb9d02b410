"""money.per_issue (BB-PAUSE-4): an issue whose sessions cost that much starts no more."""

from __future__ import annotations

from pathlib import Path

from conveyor.core.state import Stage
from conveyor.emulator.app.server import ForgeServer
from conveyor.testing.world import World
from tests.e2e.helpers import spec_ready, triage


def test_an_issue_past_its_money_budget_stops_as_budget_before_its_next_session(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """Triage costs 0.60 of a 0.50 budget: the spec writer is never launched; `budget` says why."""
    money = {"per_issue": 0.50}
    world = World.create(forge_server, tmp_path / "world", config={"money": money})
    costly = triage("money")
    costly["turns"][0]["cost"] = 0.60
    world.write_scenario([costly, spec_ready("money")])
    number = world.open_issue("Add a stock total [money]", "Sum every item.").number
    done = world.drive(number)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "agent:stopped-budget" in world.labels(number)
    state = world.state(number)
    assert state is not None
    assert state.stopped is not None
    assert state.stopped.stage is Stage.SPEC
    assert "money.per_issue" in state.stopped.reason
    assert [c.cost_usd for c in state.charges] == [0.60]
    assert not list((world.repo_home / "jobs").glob("*-spec-*/sessions/*")), "no spec session"
