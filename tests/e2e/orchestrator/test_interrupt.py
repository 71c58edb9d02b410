"""Ctrl-C: the first cools down (jobs finish their stage), the second stops the jobs."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

from conveyor.core.state import Stage
from conveyor.job.jobfile import load_job_file
from conveyor.testing.forked_run import Process
from conveyor.testing.world import World
from tests.e2e.helpers import triage
from tests.e2e.orchestrator.chain import log_lines, spec_entry, wait_for

EXIT_INTERRUPTED = 130


def _paused_triage(world: World, tmp_path: Path) -> tuple[int, Path, Process]:
    """An issue whose triage session waits for `release`; `conveyor run` started on it."""
    release = tmp_path / "release"
    entry: dict[str, Any] = triage("calm")
    pause = [{"run": f"touch {release}.started"}, {"pause_until": str(release)}]
    entry["turns"] = [{"actions": pause}, *entry["turns"]]
    world.write_scenario([entry, spec_entry("calm")])
    number = world.open_issue("Add calm [calm]", "calm() returns 1.").number
    run = world.start("run")
    wait_for("triage to pause", Path(f"{release}.started").exists, timeout=200)
    return number, release, run


def test_the_first_ctrl_c_lets_the_job_finish_its_stage_and_starts_nothing_new(
    world: World, tmp_path: Path
) -> None:
    """Triage ends and saves the issue at spec; no spec job starts; the loop then exits."""
    number, release, run = _paused_triage(world, tmp_path)
    run.send_signal(signal.SIGINT)
    wait_for("the cool-down", lambda: any("cooling down" in x for x in log_lines(world.repo_home)))
    release.touch()
    out, err = run.communicate(timeout=120)
    assert run.returncode == EXIT_INTERRUPTED, out + err
    state = world.state(number)
    assert state is not None
    assert state.stage is Stage.SPEC
    assert not list(world.repo_home.glob(f"jobs/issue-{number}-spec-*"))


def test_a_second_ctrl_c_stops_the_job_which_saves_the_issue_at_its_stage(
    world: World, tmp_path: Path
) -> None:
    """The triage job gets SIGTERM, records an interrupted finish, and the issue stays at triage."""
    number, _, run = _paused_triage(world, tmp_path)
    run.send_signal(signal.SIGINT)
    wait_for("the cool-down", lambda: any("cooling down" in x for x in log_lines(world.repo_home)))
    run.send_signal(signal.SIGINT)
    out, err = run.communicate(timeout=120)
    assert run.returncode == EXIT_INTERRUPTED, out + err
    jobs = list(world.repo_home.glob(f"jobs/issue-{number}-triage-*/job.json"))
    assert len(jobs) == 1
    finished = load_job_file(jobs[0]).finished
    assert finished is not None
    assert finished.outcome == "interrupted"
    state = world.state(number)
    assert state is not None
    assert state.stage is Stage.TRIAGE
    assert state.lease is None
