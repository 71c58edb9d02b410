"""What the next session is told of the work before it: triage after too-large (TRI-14)."""

from __future__ import annotations

from typing import Any

from conveyor.core.stops import StopCode
from conveyor.testing.world import TRUSTED, World
from tests.e2e.helpers import IMPL, session_tasks, spec_ready, triage


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
