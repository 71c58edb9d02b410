"""The loop's jobs do the same forked from it (the default) as exec'd (CONVEYOR_JOB_START)."""

from __future__ import annotations

import pytest

from conveyor.core.state import Stage
from conveyor.job.jobfile import load_job_file
from conveyor.testing.world import World
from tests.e2e.orchestrator.chain import entries


@pytest.mark.parametrize("start", ["fork", "exec"])
def test_the_loop_takes_an_issue_to_a_ready_pr_whichever_way_its_jobs_start(
    world: World, start: str
) -> None:
    """Triage, spec and implement run, each logged to its own file; the issue waits at review."""
    world.extra_env["CONVEYOR_JOB_START"] = start
    world.write_scenario(entries(["st"]))
    number = world.open_issue("Add st [st]", "st() returns 1.").number
    done = world.run("run", "--until-idle")
    assert done.returncode == 0, done.stdout + done.stderr
    state = world.state(number)
    assert state is not None
    assert state.stage is Stage.REVIEW
    pr = world.pr(number)
    assert pr is not None
    assert not pr.draft
    stages = set()
    for path in world.repo_home.glob(f"jobs/issue-{number}-*/job.json"):
        record = load_job_file(path)
        assert record.finished is not None
        stages.add(record.stage)
    assert stages == {"triage", "spec", "implement"}
    logs = {p.name.split("-")[2] for p in (world.repo_home / "logs").glob(f"issue-{number}-*")}
    assert logs == {"triage", "spec", "implement"}
