"""`conveyor drive` runs its jobs forked from itself (the default) or exec'd, to the same end."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from conveyor.core.state import Stage
from conveyor.git import Repo, rev_parse
from conveyor.job.jobfile import load_job_file
from conveyor.testing.world import World
from tests.e2e.helpers import (
    committed_then_paused,
    spec_ready,
    triage,
    wait_for_file,
)

STARTS = ["fork", "exec"]


@pytest.mark.parametrize("start", STARTS)
def test_drive_takes_an_issue_through_triage_and_spec_whichever_way_its_jobs_start(
    world: World, start: str
) -> None:
    """Both jobs run and save: the issue waits at implement with its spec posted."""
    world.extra_env["CONVEYOR_JOB_START"] = start
    world.write_scenario([triage("st"), spec_ready("st")])
    issue = world.open_issue("Add a stock total [st]", "Sum the quantities.")
    done = world.drive(issue.number, through="spec")
    assert done.returncode == 0, done.stdout + done.stderr
    state = world.state(issue.number)
    assert state is not None
    assert state.stage is Stage.IMPLEMENT
    assert any("## Spec" in c.body for c in world.comments(issue.number))


@pytest.mark.parametrize("start", STARTS)
def test_ctrl_c_on_drive_lets_the_running_job_push_its_commit_and_save_the_issue(
    world: World, tmp_path: Path, start: str
) -> None:
    """JOB-4: the job gets the same SIGINT; drive waits while it pushes and saves, then fails."""
    world.extra_env["CONVEYOR_JOB_START"] = start
    world.write_scenario([triage("cc"), spec_ready("cc")])
    issue = world.open_issue("Add a stock total [cc]", "Sum the quantities.")
    assert world.drive(issue.number, through="spec").returncode == 0
    reached = tmp_path / "reached"
    paused = committed_then_paused("cc", reached, tmp_path / "never")
    world.write_scenario([paused])
    drive = world.start("drive", "--issue", str(issue.number))
    wait_for_file(reached)
    (checkout,) = world.repo_home.glob(f"jobs/issue-{issue.number}-implement-*/repo")
    local = rev_parse(Repo(checkout), "HEAD")
    os.killpg(drive.pid, signal.SIGINT)  # what Ctrl-C in drive's terminal does
    out, err = drive.communicate(timeout=120)
    assert drive.returncode != 0, out + err
    assert world.ref(f"refs/heads/agent/issue-{issue.number}") == local
    (job,) = world.repo_home.glob(f"jobs/issue-{issue.number}-implement-*/job.json")
    finished = load_job_file(job).finished
    assert finished is not None
    assert finished.outcome == "interrupted"
    state = world.state(issue.number)
    assert state is not None
    assert (state.stage, state.lease) == (Stage.IMPLEMENT, None)
