"""A clean issue merges, end to end on the embedded forge with the scripted agent."""

from __future__ import annotations

from pathlib import Path

from conveyor.core.state import Stage
from conveyor.job.jobfile import load_job_file
from conveyor.testing.world import World
from tests.e2e.back.merge_helpers import clean_back_half, fast_world, push_to_base
from tests.e2e.helpers import IMPL, assert_invariants, implement_done, spec_ready, triage

__all__ = ["fast_world"]  # the fixture, imported for pytest


def test_a_clean_issue_merges_with_a_signed_merger_comment(fast_world: World) -> None:
    """Triage to merge: squash on main, agent:merged, issue closed, branch gone, no claim left."""
    world, tag = fast_world, "cleanmerge"
    world.write_scenario([triage(tag), spec_ready(tag), implement_done(tag), *clean_back_half(tag)])
    issue = world.open_issue(f"Add a stock total [{tag}]", "Sum the quantities of every item.")
    done = world.drive(issue.number)
    assert done.returncode == 0, done.stdout + done.stderr
    state = world.state(issue.number)
    assert state is not None
    assert state.stage is Stage.DONE, done.stdout
    assert "agent:merged" in world.labels(issue.number)
    assert world.issue(issue.number).state == "closed"
    assert world.base_file("inventory/total.py") == IMPL
    pr = world.pr(issue.number)
    assert pr is not None
    assert pr.merged
    assert world.ref(f"refs/heads/agent/issue-{issue.number}") is None
    merger = [c.body for c in world.comments(pr.number) if "kind=merged " in c.body]
    assert len(merger) == 1
    assert "tests only" not in merger[0]
    checks = [c.body for c in world.comments(issue.number) if "kind=checks " in c.body]
    assert len(checks) == 1
    assert "ungated" in checks[0]
    claims = [c for c in world.comments(issue.number) if "<!-- conveyor:claim" in c.body]
    assert len(claims) == 1, "the lane keeps its one claim from job to job (CLAIM-12, CLAIM-14)"
    checks_jobs = list((world.repo_home / "jobs").glob(f"issue-{issue.number}-checks-*"))
    assert len(checks_jobs) == 1, "a 0.2 s CI poll is waited inside the checks job"
    (merge_job,) = (world.repo_home / "jobs").glob(f"issue-{issue.number}-merge-*/job.json")
    finished = load_job_file(merge_job).finished
    assert finished is not None
    assert finished.outcome == "merged"
    assert_invariants(world, issue.number)


def test_a_base_moved_while_waiting_at_merge_reruns_only_the_tests(
    fast_world: World, tmp_path: Path
) -> None:
    """MRG-4, MRG-5, MRG-7: behind (caught locally), rebased, tests only, merged; no new review."""
    world, tag = fast_world, "racemerge"
    world.write_scenario([triage(tag), spec_ready(tag), implement_done(tag), *clean_back_half(tag)])
    issue = world.open_issue(f"Add a stock total [{tag}]", "Sum the quantities of every item.")
    first = world.drive(issue.number, through="security")
    assert first.returncode == 0, first.stdout + first.stderr
    state = world.state(issue.number)
    assert state is not None
    assert state.stage is Stage.MERGE
    pr = world.pr(issue.number)
    assert pr is not None
    before = len(world.comments(pr.number))
    push_to_base(world, tmp_path, "NOTES.md", "Someone else's change.\n")

    done = world.drive(issue.number)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"#{issue.number}: merge job" in done.stdout
    assert "review job" not in done.stdout
    assert world.issue(issue.number).state == "closed"
    assert world.base_file("NOTES.md") == "Someone else's change.\n"
    assert world.base_file("inventory/total.py") == IMPL
    bodies = [c.body for c in world.comments(pr.number)]
    new = bodies[before:]
    assert [b for b in new if "kind=merged " not in b] == []
    assert len(new) == 1
    assert "tests only" in new[0]
    state = world.state(issue.number)
    assert state is not None
    assert state.rounds.syncs == 1
    assert_invariants(world, issue.number)
