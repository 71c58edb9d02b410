"""A session the scripted agent's scenario cannot play stops that issue alone, naming the file."""

from __future__ import annotations

import json

from conveyor.core.stops import StopCode
from conveyor.testing.world import ACCOUNT, World
from tests.e2e.helpers import triage


def _stop_comments(world: World, number: int) -> list[str]:
    return [
        c.body
        for c in world.comments(number)
        if c.author == ACCOUNT and "kind=stop" in c.body.splitlines()[1]
    ]


def test_an_issue_no_scenario_entry_matches_stops_alone_naming_the_scenario_file(
    world: World,
) -> None:
    """A person's issue with no tag stops with `error` naming the file; no agent is paused and
    the issue the scenario knows is still played."""
    world.write_scenario([triage("known", "reject", reason="Not a change to the library.")])
    known = world.open_issue("Add a stock total [known]", "Sum the quantities.")
    untagged = world.open_issue("Please add a CSV export", "Export the stock as CSV.")
    done = world.run("run", "--until-idle", timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert world.labels(untagged.number) == (StopCode.ERROR.label,)
    [comment] = _stop_comments(world, untagged.number)
    assert str(world.scenario_path) in comment
    assert world.labels(known.number) == (StopCode.TRIAGE_REJECTED.label,)
    status = json.loads((world.repo_home / "status.json").read_text(encoding="utf-8"))
    assert status["pauses"] == []
    state = world.state(untagged.number)
    assert state is not None
    assert state.stopped is not None
    assert state.rounds.triage_attempts == 0  # stopped at once, no attempt spent on it


def test_an_unreadable_scenario_file_stops_the_issue_naming_the_file(world: World) -> None:
    """A scenario that does not parse is the set-up's mistake: the issue's stop names it."""
    world.scenario_path.write_text("{not json", encoding="utf-8")
    issue = world.open_issue("Add a stock total [known]", "Sum the quantities.")
    done = world.drive(issue.number)
    assert done.returncode == 0, done.stdout + done.stderr
    assert world.labels(issue.number) == (StopCode.ERROR.label,)
    [comment] = _stop_comments(world, issue.number)
    assert str(world.scenario_path) in comment
