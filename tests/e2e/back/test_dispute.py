"""The fixer disputes a finding, the lens that raised it upholds the dispute, review is clean."""

from __future__ import annotations

import pytest

from conveyor.core.state import Stage
from conveyor.testing.world import World
from tests.e2e.back.test_review_fix import FINDING, lens
from tests.e2e.back.test_security_stop import session
from tests.e2e.helpers import BEHAVIOUR, assert_invariants, implement_done, spec_ready, triage

DISPUTE = {
    "finding": 1,
    "reason": "the spec fixes the signature; a docstring example would not change it",
    "spec_quote": BEHAVIOUR,
}


# Eight stage jobs and their sessions: more than the default 300 s on a busy machine.
@pytest.mark.timeout(600)
def test_a_dispute_is_upheld_by_the_lens_and_the_issue_moves_on_without_a_change(
    world: World,
) -> None:
    """FIX-4, FIX-6: one dispute quoting the spec; the original lens rules; no push needed."""
    tag = "dispute"
    fix = {"status": "done", "summary": "Disputed F1.", "addressed": [], "disputes": [DISPUTE]}
    ruling = {"finding": 1, "upheld": True, "reason": "fair: the spec settles it"}
    again = {"rulings": [ruling], "still_open": [], "findings": [], "summary": "dispute upheld"}
    world.write_scenario(
        [
            triage(tag),
            spec_ready(tag),
            implement_done(tag),
            lens(tag, "correctness", FINDING),
            lens(tag, "tests"),
            lens(tag, "scope"),
            session(tag, "fix", fix),
            session(tag, "rereview-correctness", again),
        ]
    )
    issue = world.open_issue(f"Add a stock total [{tag}]", "Sum the quantities of every item.")
    assert world.drive(issue.number, through="review").returncode == 0
    before = world.pr(issue.number)
    assert before is not None
    done = world.drive(issue.number, through="review")
    assert done.returncode == 0, done.stdout + done.stderr
    state = world.state(issue.number)
    assert state is not None
    assert state.stage is Stage.CHECKS
    (finding,) = state.findings
    assert (finding.status, finding.disputes) == ("resolved", 1)
    assert finding.dispute is not None
    assert BEHAVIOUR in finding.dispute
    after = world.pr(issue.number)
    assert after is not None
    assert after.head_sha == before.head_sha
    bodies = [c.body for c in world.comments(after.number)]
    assert any("Conveyor · fixer" in b and "Disputed:" in b for b in bodies)
    assert any("Conveyor · re-reviewer" in b and "upheld (the finding goes)" in b for b in bodies)
    assert_invariants(world, issue.number)
