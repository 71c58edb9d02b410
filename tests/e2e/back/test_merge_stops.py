"""Stops on the way to merge, end to end: a person's push, and a stop label removed to resume."""

from __future__ import annotations

from pathlib import Path

from conveyor.core.state import Stage
from conveyor.testing.world import ACCOUNT, TRUSTED, World
from tests.e2e.back.merge_helpers import clean_back_half, fast_world
from tests.e2e.helpers import (
    assert_invariants,
    implement_done,
    person_pushes,
    spec_ready,
    triage,
)

__all__ = ["fast_world"]  # the fixture, imported for pytest


def test_a_person_pushing_to_the_pr_branch_stops_branch_changed(
    fast_world: World, tmp_path: Path
) -> None:
    """STOP: the PR head is not the recorded one; the issue stops and the push is kept."""
    world, tag = fast_world, "personpush"
    world.write_scenario([triage(tag), spec_ready(tag), implement_done(tag), *clean_back_half(tag)])
    issue = world.open_issue(f"Add a stock total [{tag}]", "Sum the quantities of every item.")
    first = world.drive(issue.number, through="review")
    assert first.returncode == 0, first.stdout + first.stderr
    state = world.state(issue.number)
    assert state is not None
    assert state.stage is Stage.CHECKS
    branch = f"agent/issue-{issue.number}"
    theirs = person_pushes(world, tmp_path, branch)

    done = world.drive(issue.number)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "agent:stopped-branch-changed" in world.labels(issue.number)
    assert world.ref(f"refs/heads/{branch}") == theirs
    stop = [c.body for c in world.comments(issue.number) if "branch-changed" in c.body]
    assert any(theirs in body for body in stop)
    assert_invariants(world, issue.number)


def test_a_stop_label_removed_resumes_the_issue_which_then_merges(fast_world: World) -> None:
    """STOP-6, STOP-7: checks-unrelated; the CI is fixed, the label removed; sync, checks, merge."""
    world, tag = fast_world, "resume"
    world.write_scenario([triage(tag), spec_ready(tag), implement_done(tag), *clean_back_half(tag)])
    issue = world.open_issue(f"Add a stock total [{tag}]", "Sum the quantities of every item.")
    first = world.drive(issue.number, through="review")
    assert first.returncode == 0, first.stdout + first.stderr
    pr = world.pr(issue.number)
    main = world.ref("refs/heads/main")
    assert pr is not None
    assert main is not None
    bot = world.forge_as(ACCOUNT)
    for sha in (pr.head_sha, main):
        bot.create_check_run(sha, "ci", "completed", "failure")

    stopped = world.drive(issue.number)
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    label = "agent:stopped-checks-unrelated"
    assert label in world.labels(issue.number)

    bot.create_check_run(pr.head_sha, "ci", "completed", "success")
    world.forge_as(TRUSTED).remove_label(issue.number, label)
    done = world.drive(issue.number)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "sync job" in done.stdout
    assert "review job" not in done.stdout
    assert "agent:merged" in world.labels(issue.number)
    assert world.issue(issue.number).state == "closed"
    assert_invariants(world, issue.number)
