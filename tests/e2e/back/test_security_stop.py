"""A security finding the fix does not resolve stops the issue with its category's label."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conveyor.core.state import Stage
from conveyor.core.stops import StopCode
from conveyor.emulator.app.server import ForgeServer
from conveyor.testing.world import World
from tests.e2e.back.test_review_fix import lens
from tests.e2e.helpers import assert_invariants, implement_done, reply, spec_ready, triage

HARM = {
    "category": "abuse-risk",
    "file": "inventory/total.py",
    "line": 8,
    "evidence": "total() can be driven to any size by an unauthenticated caller",
    "suggestion": "cap the number of items summed",
}


def session(tag: str, kind: str, answer: dict[str, Any]) -> dict[str, Any]:
    """A session of `kind` that only replies."""
    return {"tag": tag, "kind": kind, "turns": [reply(answer)]}


# A whole issue through a dozen stage jobs: more than the default 300 s on a busy machine.
@pytest.mark.timeout(600)
def test_a_security_finding_still_open_after_the_rounds_stops_with_its_category(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """SEC-1..4: the last review finds abuse risk; the fix round leaves it open; the issue stops."""
    limits = {"max_fix_rounds": 1, "ci_poll_seconds": 1}
    world = World.create(forge_server, tmp_path / "world", config={"limits": limits})
    tag = "harm"
    world.write_scenario(
        [
            triage(tag),
            spec_ready(tag),
            implement_done(tag),
            lens(tag, "correctness"),
            lens(tag, "tests"),
            lens(tag, "scope"),
            session(
                tag,
                "accept",
                {
                    "verdict": "pass",
                    "reason": "it sums the stock",
                    "missing": [],
                    "no_tests_reason_holds": None,
                    "summary": "passes",
                },
            ),
            session(tag, "security", {"findings": [HARM], "summary": "one abuse risk"}),
            session(
                tag,
                "fix",
                {
                    "status": "done",
                    "summary": "Nothing changed.",
                    "addressed": [],
                    "disputes": [],
                },
            ),
            session(
                tag,
                "rereview-security",
                {"rulings": [], "still_open": [1], "findings": [], "summary": "still open"},
            ),
        ]
    )
    issue = world.open_issue(f"Add a stock total [{tag}]", "Sum the quantities of every item.")
    done = world.drive(issue.number)
    assert done.returncode == 0, done.stdout + done.stderr
    state = world.state(issue.number)
    assert state is not None, done.stdout
    assert state.stopped is not None, done.stdout
    assert state.stopped.control is StopCode.ABUSE_RISK
    assert state.stopped.stage is Stage.REVIEW
    assert world.labels(issue.number) == ("agent:stopped-abuse-risk",)
    pr = world.pr(issue.number)
    assert pr is not None
    bodies = [c.body for c in world.comments(pr.number)]
    assert any("### Security review: findings" in b and "abuse-risk" in b for b in bodies)
    assert_invariants(world, issue.number)
