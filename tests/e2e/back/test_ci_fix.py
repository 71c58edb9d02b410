"""Red CI is fixed by the CI fixer, re-reviewed by two lenses, and the issue merges."""

from __future__ import annotations

from typing import Any

from conveyor.core.state import Stage
from conveyor.testing.world import ACCOUNT, World
from tests.e2e.back.merge_helpers import clean_back_half, fast_world
from tests.e2e.helpers import (
    IMPL,
    assert_invariants,
    implement_done,
    reply,
    spec_ready,
    triage,
)

__all__ = ["fast_world"]  # the fixture, imported for pytest

FIXED = IMPL.replace("summed.", "summed (CI fix).")


def check_fixer(tag: str) -> dict[str, Any]:
    """A CI fixer that commits one change."""
    files = [
        {"write": {"path": "inventory/total.py", "content": FIXED}},
        {"commit": "Fix what CI found"},
    ]
    answer = {"status": "done", "cause": "CI's check failed", "summary": "fixed it"}
    return {"tag": tag, "kind": "check_fix", "turns": [{"actions": files}, reply(answer)]}


def rereviewers(tag: str) -> list[dict[str, Any]]:
    """The correctness and scope lenses re-reading the check fix: nothing new."""
    answer = {"rulings": [], "still_open": [], "findings": [], "summary": "the fix is fine"}
    return [
        {"tag": tag, "kind": f"rereview-{lens}", "turns": [reply(answer)]}
        for lens in ("correctness", "scope")
    ]


def test_red_ci_is_fixed_by_the_ci_fixer_and_the_issue_merges(fast_world: World) -> None:
    """CHK-7: a failing `ci` check; one fix, reviewed by two lenses; checks again; merged."""
    world, tag = fast_world, "redci"
    world.write_scenario(
        [
            triage(tag),
            spec_ready(tag),
            implement_done(tag),
            check_fixer(tag),
            *rereviewers(tag),
            *clean_back_half(tag),
        ]
    )
    issue = world.open_issue(f"Add a stock total [{tag}]", "Sum the quantities of every item.")
    first = world.drive(issue.number, through="review")
    assert first.returncode == 0, first.stdout + first.stderr
    pr = world.pr(issue.number)
    assert pr is not None
    world.forge_as(ACCOUNT).create_check_run(pr.head_sha, "ci", "completed", "failure")

    fixed = world.drive(issue.number, through="checks")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    state = world.state(issue.number)
    assert state is not None
    assert state.stage is Stage.REVIEW
    assert state.rereview is not None
    assert state.rereview.lenses == ("correctness", "scope")
    assert state.rounds.check_fix == 1

    done = world.drive(issue.number)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "agent:merged" in world.labels(issue.number)
    assert world.base_file("inventory/total.py") == FIXED
    bodies = [c.body for c in world.comments(pr.number)]
    for lens in ("correctness", "scope"):
        assert len([b for b in bodies if f"kind=rereview-{lens} " in b]) == 1, lens
    assert_invariants(world, issue.number)
