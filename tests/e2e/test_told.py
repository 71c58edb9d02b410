"""What the next session is told of the work before it: triage after too-large (TRI-14), and
a session after an interrupted one."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

from conveyor.core.stops import StopCode
from conveyor.testing.world import TRUSTED, World
from tests.e2e.helpers import (
    IMPL,
    committed_then_paused,
    implement_done,
    session_tasks,
    spec_ready,
    triage,
    wait_for_file,
)


def test_triage_after_a_too_large_stop_reads_the_handoff_and_the_branch_s_commits(
    world: World,
) -> None:
    """The implementer commits, hands off twice and stops too-large; a person takes the stop
    off, and triage's task names the branch's commits and the handoff it left."""
    answer: dict[str, Any] = {"status": "handoff", "summary": "out of room"}
    answer |= {"blocked_reason": None, "deviations": []}
    actions = [
        {"write": {"path": "inventory/total.py", "content": IMPL}},
        {"commit": "Sum the stock in total()"},
        {"handoff": "Half done: total() sums; the CLI flag is left."},
        {"reply": answer},
    ]
    writer = {"tag": "big", "kind": "implement", "turns": [{"actions": actions}]}
    world.write_scenario([triage("big"), spec_ready("big"), writer])
    issue = world.open_issue("Add a stock total [big]", "Sum the quantities.")
    assert world.drive(issue.number).returncode == 0
    assert world.labels(issue.number) == (StopCode.TOO_LARGE.label,)
    first = session_tasks(world, issue.number, "triage")
    assert len(first) == 1
    assert "Sum the stock in total()" not in first[0]

    world.forge_as(TRUSTED).remove_label(issue.number, StopCode.TOO_LARGE.label)
    again = world.drive(issue.number, through="triage")
    assert again.returncode == 0, again.stdout + again.stderr
    told = session_tasks(world, issue.number, "triage")[-1]
    assert "Sum the stock in total()" in told
    assert "Stub total() and its failing test" in told
    assert "handoff.md" in told


def test_a_session_after_an_interrupted_one_is_told_so_first_and_how_far_it_got(
    world: World, tmp_path: Path
) -> None:
    """The implementer commits and is stopped by Ctrl-C; the next implement session's task
    opens with the interrupted job, its last steps and the commit it kept."""
    world.write_scenario([triage("cut"), spec_ready("cut")])
    issue = world.open_issue("Add a stock total [cut]", "Sum the quantities.")
    assert world.drive(issue.number, through="spec").returncode == 0
    reached = tmp_path / "reached"
    world.write_scenario([committed_then_paused("cut", reached, tmp_path / "never")])
    drive = world.start("drive", "--issue", str(issue.number))
    wait_for_file(reached)
    os.killpg(drive.pid, signal.SIGINT)
    drive.communicate(timeout=120)
    (cut,) = world.repo_home.glob(f"jobs/issue-{issue.number}-implement-*")

    world.write_scenario([implement_done("cut")])
    again = world.drive(issue.number, through="implement")
    assert again.returncode == 0, again.stdout + again.stderr
    first, second = session_tasks(world, issue.number, "implement")
    opening, rest = second.split("\n\n", 1)
    assert rest.split("\n\n", 1)[0] == first.split("\n\n", 1)[0]  # the note comes first
    assert cut.name not in first.split("\n\n", 1)[0]
    assert cut.name in opening
    assert f"touch {reached}" in opening
    assert "Sum every item in total()" in opening
