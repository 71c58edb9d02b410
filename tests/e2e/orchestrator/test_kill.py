"""kill -9 of a job mid-stage, and of the orchestrator: the work resumes and nothing doubles."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from conveyor.core.state import Stage
from conveyor.git import is_ancestor
from conveyor.job.jobfile import load_job_file
from conveyor.testing.forked_run import Process
from conveyor.testing.world import World
from tests.e2e.helpers import triage
from tests.e2e.orchestrator.chain import (
    assert_invariants,
    assert_no_overlap,
    assert_one_state_comment,
    implement_entry,
    job_spans,
    log_lines,
    spec_entry,
    wait_for,
    watchdog_resumes,
)


def _paused_issue(
    world: World, tmp_path: Path, tag: str, *, commit_first: bool = False
) -> tuple[int, Path]:
    """An issue whose implementer waits for `release` (announcing it with `release.started`)."""
    release = tmp_path / f"release-{tag}"
    implement = implement_entry(tag, pause=release, commit_first=commit_first)
    world.write_scenario([triage(tag), spec_entry(tag), implement])
    number = world.open_issue(f"Add {tag} [{tag}]", f"{tag}() returns 1.").number
    return number, release


def _implement_pid(world: World, number: int) -> int:
    found = list(world.repo_home.glob(f"jobs/issue-{number}-implement-*/job.json"))
    assert len(found) == 1
    return load_job_file(found[0]).pid


def _finish(run: Process) -> None:
    out, err = run.communicate(timeout=240)
    assert run.returncode == 0, out + err


def _assert_at_review(world: World, number: int, jobs: int) -> None:
    state = world.state(number)
    assert state is not None
    assert state.stage is Stage.REVIEW, state.stopped
    assert_one_state_comment(world, number)
    spans = job_spans([world.repo_home], number)
    assert len(spans) == jobs
    assert_no_overlap(spans)
    assert_invariants(world, number)


def test_a_job_killed_mid_stage_is_resumed_and_the_issue_goes_on(
    world: World, tmp_path: Path
) -> None:
    """WD-5: the implement job dies by SIGKILL after a local commit; the watchdog resumes it
    once; the commit is kept in a rescue ref and in the PR; review is reached."""
    number, release = _paused_issue(world, tmp_path, "kappa", commit_first=True)
    run = world.start("run", "--until-idle")
    wait_for("the implementer to pause", Path(f"{release}.started").exists, timeout=200)
    os.killpg(_implement_pid(world, number), signal.SIGKILL)
    release.touch()
    _finish(run)
    resumes = [line for line in log_lines(world.repo_home) if line.startswith("resume #")]
    assert resumes == [f"resume #{number} implement: job gone without finishing; resume 1 of 2"]
    assert watchdog_resumes(world.repo_home) == {}, "the count starts again once the job ended"
    _assert_at_review(world, number, jobs=4)
    state, pr = world.state(number), world.pr(number)
    assert state is not None
    assert pr is not None
    assert state.rescue is not None, "the killed job's local commit was rescued"
    assert world.ref(state.rescue.ref) == state.rescue.sha
    assert is_ancestor(world.bare(), state.rescue.sha, pr.head_sha)


def test_a_restarted_orchestrator_adopts_the_running_job_and_starts_no_second_one(
    world: World, tmp_path: Path
) -> None:
    """The orchestrator dies by SIGKILL mid-implement; a new one adopts the job and goes on."""
    number, release = _paused_issue(world, tmp_path, "lambda")
    first = world.start("run", "--until-idle")
    wait_for("the implementer to pause", Path(f"{release}.started").exists, timeout=200)
    os.killpg(first.pid, signal.SIGKILL)
    first.communicate(timeout=30)
    second = world.start("run", "--until-idle")
    wait_for(
        "the new orchestrator to adopt the job",
        lambda: any(line.startswith(f"adopted #{number}") for line in log_lines(world.repo_home)),
    )
    release.touch()
    _finish(second)
    _assert_at_review(world, number, jobs=3)
