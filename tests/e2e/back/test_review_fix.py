"""A review finding fixed in round 1, end to end on the embedded forge with the scripted agent."""

from __future__ import annotations

from typing import Any

import pytest

from conveyor.core.state import Stage
from conveyor.testing.world import World
from tests.e2e.helpers import (
    IMPL,
    assert_invariants,
    implement_done,
    reply,
    spec_ready,
    triage,
)

FINDING = {
    "severity": "blocking",
    "file": "inventory/total.py",
    "line": 8,
    "evidence": "total() has no docstring example for an empty stock",
    "suggestion": "say that an empty stock totals 0",
}
NIT = FINDING | {"severity": "nit", "evidence": "the module docstring could be shorter"}
FIXED = IMPL.replace("summed.", "summed; an empty stock totals 0.")


def lens(tag: str, name: str, *found: dict[str, Any]) -> dict[str, Any]:
    """A first-review lens's entry."""
    answer = {"lens": name, "findings": list(found), "summary": f"{name}: read the diff"}
    return {"tag": tag, "kind": f"review-{name}", "turns": [reply(answer)]}


def fixer(tag: str) -> dict[str, Any]:
    """A fixer that resolves F1 with one commit."""
    files = [
        {"write": {"path": "inventory/total.py", "content": FIXED}},
        {"commit": "Say what an empty stock totals"},
    ]
    answer = {
        "status": "done",
        "summary": "Documented the empty stock.",
        "addressed": [{"finding": 1, "how": "the docstring says it"}],
        "disputes": [],
    }
    return {"tag": tag, "kind": "fix", "turns": [{"actions": files}, reply(answer)]}


def rereviewer(tag: str) -> dict[str, Any]:
    """The correctness lens re-reviewing the fix: resolved, nothing new."""
    answer = {"rulings": [], "still_open": [], "findings": [], "summary": "F1 is resolved"}
    return {"tag": tag, "kind": "rereview-correctness", "turns": [reply(answer)]}


# Eight stage jobs and their sessions: more than the default 300 s on a busy machine.
@pytest.mark.timeout(600)
def test_a_review_finding_is_fixed_in_round_1_and_the_issue_moves_on_to_checks(
    world: World,
) -> None:
    """REV-1..9, FIX-1..8: three lenses, one finding, one fix round, a clean re-review."""
    tag = "reviewfix"
    world.write_scenario(
        [
            triage(tag),
            spec_ready(tag),
            implement_done(tag),
            lens(tag, "correctness", FINDING),
            lens(tag, "tests", NIT),
            lens(tag, "scope"),
            fixer(tag),
            rereviewer(tag),
        ]
    )
    issue = world.open_issue(f"Add a stock total [{tag}]", "Sum the quantities of every item.")
    first = world.drive(issue.number, through="review")
    assert first.returncode == 0, first.stdout + first.stderr
    state = world.state(issue.number)
    assert state is not None
    assert state.stage is Stage.FIX
    assert [(f.id, f.lens, f.status) for f in state.findings] == [("F1", "correctness", "open")]
    reviewed = state.head_sha

    again = world.drive(issue.number, through="review")
    assert again.returncode == 0, again.stdout + again.stderr
    state = world.state(issue.number)
    assert state is not None
    assert state.stage is Stage.CHECKS
    assert (state.rounds.fix, state.rereview) == (1, None)
    assert [f.status for f in state.findings] == ["resolved"]
    pr = world.pr(issue.number)
    assert pr is not None
    assert state.reviewed_sha == pr.head_sha != reviewed
    fixed = world.base_file("inventory/total.py", pr.head_ref)
    assert fixed is not None
    assert "an empty stock totals 0" in fixed

    bodies = [c.body for c in world.comments(pr.number)]
    kinds = ("review-correctness", "review-tests", "review-scope", "nits", "fix-1")
    for kind in (*kinds, "rereview-correctness"):
        assert len([b for b in bodies if f"kind={kind} " in b]) == 1, kind
    assert any("Conveyor · fixer" in b for b in bodies)
    assert any("### Nits (not acted on)" in b and "shorter" in b for b in bodies)
    assert_invariants(world, issue.number)
