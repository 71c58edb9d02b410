"""`conveyor resume --issue N`, as the status and the stop comment name it, lifts a stop on the
embedded forge: the label comes off through the forge client and the next tick restarts it."""

from __future__ import annotations

import json
import shlex
import subprocess

from conveyor.core.labels import Status
from conveyor.core.state import Stage
from conveyor.core.stops import StopCode
from conveyor.testing.world import ACCOUNT, World
from tests.e2e.helpers import spec_ready, triage


def test_the_resume_command_the_status_shows_runs_and_the_next_tick_restarts_the_issue(
    world: World,
) -> None:
    """The status's command removes the stop label; the stop comment names the same command;
    the next tick takes the issue again with fresh limits."""
    world.write_scenario([triage("again", "reject", reason="Not a change to the library.")])
    issue = world.open_issue("Add a stock total [again]", "Sum the quantities.")
    stopped = world.run("tick")
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    assert world.labels(issue.number) == (StopCode.TRIAGE_REJECTED.label,)
    status = json.loads((world.repo_home / "status.json").read_text(encoding="utf-8"))
    [stop] = status["stopped"]
    comments = [c.body for c in world.comments(issue.number) if c.author == ACCOUNT]
    assert any(f"`conveyor resume --issue {issue.number}`" in body for body in comments)
    resumed = subprocess.run(
        shlex.split(stop["resume"]), env=world.env(), capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert world.labels(issue.number) == ()
    # Issue 48: both say where the restart begins, and why there.
    where = "at triage (it stopped at triage): nothing is implemented yet"
    assert where in resumed.stdout
    assert any(where in body for body in comments)
    world.write_scenario([triage("again"), spec_ready("again")])
    again = world.run("tick")
    assert again.returncode == 0, again.stdout + again.stderr
    state = world.state(issue.number)
    assert state is not None
    assert (state.stage, state.stopped) == (Stage.SPEC, None)
    assert world.labels(issue.number) == (Status.WORKING.value,)


def test_resuming_an_issue_that_is_not_stopped_changes_nothing_and_says_so(world: World) -> None:
    """No stop label: exit 1 and the labels are as they were."""
    issue = world.open_issue("Add a stock total", "Sum the quantities.")
    done = world.run("resume", "--issue", str(issue.number))
    assert done.returncode == 1
    assert "not stopped" in done.stderr
    assert world.labels(issue.number) == ()
