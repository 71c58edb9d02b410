"""Nothing is lost (STOP-10): a job killed after a local commit, before any push."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from conveyor.core.state import Stage
from conveyor.git import is_ancestor
from conveyor.testing.world import World
from tests.e2e.helpers import IMPL, implement_done, spec_ready, triage


def _wait_for(path: Path, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)


def test_a_killed_implement_jobs_commit_is_rescued_and_ends_up_in_the_pr(
    world: World, tmp_path: Path
) -> None:
    """Kill the job's process group after a local commit; the next job continues from it."""
    world.write_scenario([triage("kill"), spec_ready("kill")])
    issue = world.open_issue("Add a stock total [kill]", "Sum the quantities.")
    first = world.drive(issue.number, through="spec")
    assert first.returncode == 0, first.stdout + first.stderr
    reached, release = tmp_path / "reached", tmp_path / "release"
    paused = {
        "tag": "kill",
        "kind": "implement",
        "turns": [
            {
                "actions": [
                    {"write": {"path": "inventory/total.py", "content": IMPL}},
                    {"commit": "Sum every item in total()"},
                    {"run": f"touch {reached}"},
                    {"pause_until": str(release)},
                ]
            }
        ],
    }
    world.write_scenario([paused])
    job = world.start("job", "--issue", str(issue.number), "--stage", "implement")
    try:
        _wait_for(reached)
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
    return (
        (checkout / ".git" / "refs" / "heads" / "agent")
        .joinpath(next(p.name for p in (checkout / ".git" / "refs" / "heads" / "agent").iterdir()))
        .read_text()
        .strip()
    )
