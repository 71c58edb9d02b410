"""A person's push during the spec session survives the reset of a needs-info (SPEC-128)."""

from __future__ import annotations

from pathlib import Path

from conveyor.core.stops import StopCode
from conveyor.testing.world import World
from tests.e2e.helpers import (
    STUB,
    TEST,
    assert_invariants,
    person_pushes,
    reply,
    spec_answer,
    triage,
    wait_for_file,
)


def test_a_person_s_push_during_the_spec_session_survives_a_needs_info_reset(
    world: World, tmp_path: Path
) -> None:
    """The spec writer asks questions after a person pushed to the branch: the branch keeps
    the person's commit and the issue stops branch-changed, saying why."""
    reached, release = tmp_path / "reached", tmp_path / "release"
    spec = {
        "tag": "held",
        "kind": "spec",
        "turns": [
            {
                "actions": [
                    {"write": {"path": "inventory/total.py", "content": STUB}},
                    {"write": {"path": "tests/test_total.py", "content": TEST}},
                    {"commit": "Stub total() and its failing test"},
                    {"run": f"touch {reached}"},
                    {"pause_until": str(release)},
                ]
            },
            reply(spec_answer("needs-info", questions=["Count reserved items?"])),
        ],
    }
    world.write_scenario([triage("held"), spec])
    issue = world.open_issue("Add a stock total [held]", "Sum the quantities.")
    drive = world.start("drive", "--issue", str(issue.number))
    wait_for_file(reached)
    branch = f"agent/issue-{issue.number}"
    theirs = person_pushes(world, tmp_path, branch)
    release.touch()
    out, err = drive.communicate(timeout=240)
    assert drive.returncode == 0, out + err
    assert world.ref(f"refs/heads/{branch}") == theirs
    assert StopCode.BRANCH_CHANGED.label in world.labels(issue.number)
    stop = [c.body for c in world.comments(issue.number) if "branch-changed" in c.body]
    assert any(theirs[:12] in body for body in stop)
    assert_invariants(world, issue.number)
