"""Nothing is lost (STOP-10): a job killed after a local commit, before any push."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from conveyor.core.state import Stage
from conveyor.git import Repo, is_ancestor, rev_parse
from conveyor.testing.world import World
from tests.e2e.helpers import (
    committed_then_paused,
    implement_done,
    spec_ready,
    triage,
    wait_for_file,
)


def test_a_killed_implement_jobs_commit_is_rescued_and_ends_up_in_the_pr(
    world: World, tmp_path: Path
) -> None:
    """Kill the job's process group after a local commit; the next job continues from it."""
    world.write_scenario([triage("kill"), spec_ready("kill")])
    issue = world.open_issue("Add a stock total [kill]", "Sum the quantities.")
    first = world.drive(issue.number, through="spec")
    assert first.returncode == 0, first.stdout + first.stderr
    reached, release = tmp_path / "reached", tmp_path / "release"
    paused = committed_then_paused("kill", reached, release)
    world.write_scenario([paused])
    job = world.start("job", "--issue", str(issue.number), "--stage", "implement")
    try:
        wait_for_file(reached)
        os.killpg(job.pid, signal.SIGKILL)
        job.communicate(timeout=60)
    finally:
        release.touch()  # lets the orphaned scripted agent end
    (leftover,) = (world.repo_home / "jobs").glob(f"issue-{issue.number}-implement-*/repo")
    assert world.ref(f"refs/heads/agent/issue-{issue.number}") != _head(leftover)
    local = _head(leftover)

    world.write_scenario([implement_done("kill")])
    second = world.drive(issue.number, through="implement")
    assert second.returncode == 0, second.stdout + second.stderr
    state = world.state(issue.number)
    assert state is not None
    assert state.rescue is not None
    assert (state.rescue.sha, state.rescue.kept) == (local, True)
    assert world.ref(state.rescue.ref) == local
    assert state.stage is Stage.REVIEW
    pr = world.pr(issue.number)
    assert pr is not None
    assert is_ancestor(world.bare(), local, pr.head_sha)
    assert not leftover.exists()


def _head(checkout: Path) -> str:
    return rev_parse(Repo(checkout), "HEAD")


def test_sigterm_during_a_session_aborts_it_saves_the_stage_and_pushes_the_commit(
    world: World, tmp_path: Path
) -> None:
    """JOB-4, STOP-9: the session ends, the lease is cleared, the commit reaches the branch."""
    world.write_scenario([triage("term"), spec_ready("term")])
    issue = world.open_issue("Add a stock total [term]", "Sum the quantities.")
    assert world.drive(issue.number, through="spec").returncode == 0
    reached = tmp_path / "reached"
    paused = committed_then_paused("term", reached, tmp_path / "never")
    world.write_scenario([paused])
    job = world.start("job", "--issue", str(issue.number), "--stage", "implement")
    wait_for_file(reached)
    (checkout,) = (world.repo_home / "jobs").glob(f"issue-{issue.number}-implement-*/repo")
    local = _head(checkout)
    job.send_signal(signal.SIGTERM)
    _, err = job.communicate(timeout=120)
    assert job.returncode == 1, err
    assert world.ref(f"refs/heads/agent/issue-{issue.number}") == local
    state = world.state(issue.number)
    assert state is not None
    assert (state.stage, state.lease) == (Stage.IMPLEMENT, None)
    assert not checkout.exists()
