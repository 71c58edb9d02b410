"""A merged issue whose close-out never ran is finished by the orchestrator's sweep."""

from __future__ import annotations

from pathlib import Path

from conveyor.core.claims import parse_claims
from conveyor.core.state import Stage
from conveyor.emulator.app.server import ForgeServer
from conveyor.testing.world import ACCOUNT, World
from tests.e2e.back.merge_helpers import clean_back_half
from tests.e2e.helpers import assert_invariants, implement_done, spec_ready, triage

LOOP = {"limits": {"claim_wait_seconds": [0, 0], "ci_poll_seconds": 0.2, "poll_seconds": 1}}


def test_a_merged_issue_left_at_working_by_a_killed_merge_job_is_closed_out_by_the_sweep(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """The merge job's squash closed the issue, then it died: the next tick finishes close-out
    (merged label, one merger comment, claims closed, branch gone, state done)."""
    world = World.create(forge_server, tmp_path / "world", config=LOOP)
    tag = "sweepmerged"
    world.write_scenario([triage(tag), spec_ready(tag), implement_done(tag), *clean_back_half(tag)])
    issue = world.open_issue(f"Add a stock total [{tag}]", "Sum the quantities of every item.")
    first = world.drive(issue.number, through="security")
    assert first.returncode == 0, first.stdout + first.stderr
    pr = world.pr(issue.number)
    assert pr is not None
    # What the merge job does before its close-out, as the pipeline's account; then it died.
    world.forge_as(ACCOUNT).merge_pr(pr.number, pr.head_sha, pr.title, pr.body)
    assert world.issue(issue.number).state == "closed"
    assert "agent:working" in world.labels(issue.number)

    done = world.run("run", "--until-idle")
    assert done.returncode == 0, done.stdout + done.stderr
    labels = world.labels(issue.number)
    assert "agent:merged" in labels
    assert "agent:working" not in labels
    state = world.state(issue.number)
    assert state is not None
    assert state.stage is Stage.DONE
    assert state.lease is None
    merged = [c for c in world.comments(pr.number) if "kind=merged " in c.body]
    assert len(merged) == 1
    assert world.ref(f"refs/heads/agent/issue-{issue.number}") is None
    claims = parse_claims(world.comments(issue.number), ACCOUNT)
    assert claims
    assert all(claim.closed for claim in claims)
    assert_invariants(world, issue.number)
