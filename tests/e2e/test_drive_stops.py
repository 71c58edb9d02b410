"""`conveyor drive` halts at a stop, and `--take-stopped` restarts the issue by number."""

from __future__ import annotations

from conveyor.core.labels import Status
from conveyor.core.state import Stage
from conveyor.core.stops import StopCode
from conveyor.testing.world import World
from tests.e2e.helpers import spec_ready, triage


def test_a_stopped_issue_halts_the_drive_until_taken_by_number(world: World) -> None:
    """A rejected issue stays stopped; `drive --take-stopped` restarts it at triage."""
    world.write_scenario([triage("again", "reject", reason="Not a change to the library.")])
    issue = world.open_issue("Add a stock total [again]", "Sum the quantities.")
    first = world.drive(issue.number)
    assert first.returncode == 0, first.stdout + first.stderr
    assert world.labels(issue.number) == (StopCode.TRIAGE_REJECTED.label,)
    halted = world.drive(issue.number)
    assert halted.returncode == 0
    assert "stopped" in halted.stdout
    assert world.labels(issue.number) == (StopCode.TRIAGE_REJECTED.label,)
    world.write_scenario([triage("again"), spec_ready("again")])
    taken = world.drive(issue.number, through="spec", take_stopped=True)
    assert taken.returncode == 0, taken.stdout + taken.stderr
    assert world.labels(issue.number) == (Status.WORKING.value,)
    state = world.state(issue.number)
    assert state is not None
    assert (state.stage, state.stopped) == (Stage.IMPLEMENT, None)
