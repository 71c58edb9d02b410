"""Issue 13, point 8: the orchestrator's log records the end of every job it ran."""

from __future__ import annotations

import re
from pathlib import Path

from conveyor.emulator.app.server import ForgeServer
from conveyor.job.jobfile import load_job_file
from conveyor.orchestrator.shell.tick_files import LOG_FILE
from tests.e2e.realrepo.project import open_mul_issue, project_world, whole_issue

ENDED = re.compile(r"job ended #(\d+) (\S+) pid (\d+)(?: exit (-?\d+))?: (\S+)")


def test_every_job_of_a_whole_issue_has_its_end_in_the_orchestrator_log(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """One `job ended` line per job.json, with the job's exit status and its outcome."""
    world = project_world(forge_server, tmp_path, commands={})
    world.write_scenario(whole_issue("log"))
    number = open_mul_issue(world, "log")

    done = world.run("run", "--until-idle")

    assert done.returncode == 0, done.stdout + done.stderr
    assert "agent:merged" in world.labels(number), world.labels(number)
    jobs = [load_job_file(p) for p in world.repo_home.glob("jobs/*/job.json")]
    assert len(jobs) >= 8
    log = (world.repo_home / LOG_FILE).read_text()
    ended = {(int(m[1]), m[2], int(m[3])): (m[4], m[5]) for m in ENDED.finditer(log)}
    for job in jobs:
        assert job.finished is not None
        exit_code, outcome = ended[(job.issue, job.stage, job.pid)]
        assert exit_code is not None
        assert outcome == job.finished.outcome
