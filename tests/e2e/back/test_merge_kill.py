"""kill -9 of a merge job right after its own rebase push: the next job knows the push."""

from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from conveyor.core.state import Stage
from conveyor.testing.world import World
from tests.e2e.back.merge_helpers import FAST, clean_back_half, fast_world, push_to_base
from tests.e2e.helpers import (
    IMPL,
    assert_invariants,
    implement_done,
    spec_ready,
    triage,
)

__all__ = ["fast_world"]  # the fixture, imported for pytest


REACHED = "conveyor-test-reached-the-pause"


@pytest.fixture
def seen_folder() -> Iterator[Path]:
    """A folder the job's box sees (read-only, as the root filesystem): not in /tmp, which the
    box replaces with its own."""
    folder = Path(tempfile.mkdtemp(prefix="conveyor-merge-kill-", dir="/var/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _pausing_tests(flag: Path, release: Path) -> str:
    """The sample's test command, which says it reached the pause in its log and waits for
    `release` while `flag` exists (boxed, it can write nothing the test reads but its log)."""
    wait = f"echo {REACHED}; while [ ! -f {release} ]; do sleep 0.05; done"
    return f"if [ -f {flag} ]; then {wait}; fi; {sys.executable} -m pytest"


def _reached(world: World, issue: int) -> bool:
    logs = (world.repo_home / "jobs").glob(f"issue-{issue}-merge-*/logs/*.log")
    return any(REACHED in path.read_text(errors="replace").split() for path in logs)


def test_a_merge_job_killed_after_its_rebase_push_is_resumed_without_a_branch_changed_stop(
    fast_world: World, tmp_path: Path, seen_folder: Path
) -> None:
    """The base moved; the merge job rebases, pushes and dies by SIGKILL in the tests-only run.
    The resumed merge job takes the pushed head as the pipeline's own: merged, no stop."""
    world, tag = fast_world, "killmerge"
    flag, release = seen_folder / "flag", seen_folder / "release"
    commands = {"test": _pausing_tests(flag, release), "timeout_seconds": 120}
    world.write_config({**FAST, "commands": commands})
    world.write_scenario([triage(tag), spec_ready(tag), implement_done(tag), *clean_back_half(tag)])
    issue = world.open_issue(f"Add a stock total [{tag}]", "Sum the quantities of every item.")
    first = world.drive(issue.number, through="security")
    assert first.returncode == 0, first.stdout + first.stderr
    before = world.state(issue.number)
    assert before is not None
    assert before.stage is Stage.MERGE
    push_to_base(world, tmp_path, "NOTES.md", "Someone else's change.\n")
    flag.touch()
    job = world.start("job", "--issue", str(issue.number), "--stage", "merge")
    try:
        deadline = time.monotonic() + 120
        while not _reached(world, issue.number):
            assert time.monotonic() < deadline, "the merge job's tests never reached the pause"
            time.sleep(0.05)
        pr = world.pr(issue.number)
        assert pr is not None
        assert pr.head_sha != before.head_sha, "the rebased head was pushed before the tests"
        os.killpg(job.pid, signal.SIGKILL)
        job.communicate(timeout=60)
    finally:
        flag.unlink()
        release.touch()
    resumed = world.job(issue.number, "merge", "--resume")
    assert resumed.returncode == 0, resumed.stderr
    state = world.state(issue.number)
    assert state is not None
    assert state.stopped is None, state.stopped
    assert state.stage is Stage.DONE
    assert not any(name.startswith("agent:stopped-") for name in world.labels(issue.number))
    assert world.base_file("NOTES.md") == "Someone else's change.\n"
    assert world.base_file("inventory/total.py") == IMPL
    assert_invariants(world, issue.number)
