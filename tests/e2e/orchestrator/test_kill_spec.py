"""kill -9 of a spec job: the watchdog's `--resume` runs it again and its commit is kept."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

from conveyor.cli.config_load import load_config
from conveyor.core.state import Stage
from conveyor.git import is_ancestor
from conveyor.job.jobfile import load_job_file
from conveyor.ops.forge.context import OpContext
from conveyor.ops.forge.state_store import save_state
from conveyor.testing.world import ACCOUNT, World
from tests.e2e.back.merge_helpers import push_to_base
from tests.e2e.helpers import triage
from tests.e2e.orchestrator.chain import (
    assert_invariants,
    implement_entry,
    log_lines,
    spec_entry,
    wait_for,
    watchdog_resumes,
)
from tests.e2e.orchestrator.test_three import pr_heads


def _spec_committed_then_paused(tag: str, release: Path) -> dict[str, Any]:
    """The chain's spec writer, waiting for `release` after its commit (announced by
    `release.started`); a resumed session finds its files committed and goes on."""
    entry = spec_entry(tag)
    first = entry["turns"][0]["actions"]
    first += [{"run": f"touch {release}.started"}, {"pause_until": str(release)}]
    return entry


def _spec_pid(world: World, number: int) -> int:
    (found,) = world.repo_home.glob(f"jobs/issue-{number}-spec-*/job.json")
    return load_job_file(found).pid


def test_a_spec_job_killed_after_its_commit_is_resumed_and_the_commit_reaches_the_pr(
    world: World, tmp_path: Path
) -> None:
    """The spec job dies by SIGKILL after a local commit; `--resume` is taken for spec, the
    commit is rescued and continued from, and the issue goes on to review with one resume."""
    tag, release = "sigma", tmp_path / "release"
    world.write_scenario(
        [triage(tag), _spec_committed_then_paused(tag, release), implement_entry(tag)]
    )
    number = world.open_issue(f"Add {tag} [{tag}]", f"{tag}() returns 1.").number
    run = world.start("run", "--until-idle")
    wait_for("the spec writer to pause", Path(f"{release}.started").exists, timeout=200)
    os.killpg(_spec_pid(world, number), signal.SIGKILL)
    release.touch()
    out, err = run.communicate(timeout=240)
    assert run.returncode == 0, out + err
    resumes = [line for line in log_lines(world.repo_home) if line.startswith("resume #")]
    assert resumes == [f"resume #{number} spec: job gone without finishing; resume 1 of 2"]
    assert watchdog_resumes(world.repo_home) == {}, "the count starts again once the job ended"
    state, pr = world.state(number), world.pr(number)
    assert state is not None
    assert state.stage is Stage.REVIEW, state.stopped
    assert pr is not None
    assert state.rescue is not None, "the killed spec job's commit was rescued"
    assert world.ref(state.rescue.ref) == state.rescue.sha
    assert is_ancestor(world.bare(), state.rescue.sha, pr.head_sha)
    assert_invariants(world, number)


def test_a_spec_job_that_died_after_opening_its_pr_is_resumed_onto_that_pr(world: World) -> None:
    """The forge as a spec job leaves it when killed after its push and draft PR but before
    its save: the resumed job finds its commit and its PR, and opens no second one."""
    tag = "tau"
    world.write_scenario([triage(tag), spec_entry(tag), implement_entry(tag)])
    number = world.open_issue(f"Add {tag} [{tag}]", f"{tag}() returns 1.").number
    assert world.drive(number, through="triage").returncode == 0
    before_spec = world.state(number)
    assert before_spec is not None
    assert world.drive(number, through="spec").returncode == 0
    pr = world.pr(number)
    assert pr is not None
    ops = OpContext(world.forge_as(ACCOUNT), load_config(world.config_path), run_id="test")
    save_state(ops, number, before_spec)  # the spec job's save never happened

    resumed = world.job(number, "spec", "--resume")
    assert resumed.returncode == 0, resumed.stderr
    state = world.state(number)
    assert state is not None
    assert (state.stage, state.pr, state.head_sha) == (Stage.IMPLEMENT, pr.number, pr.head_sha)
    assert pr_heads(world).count(f"agent/issue-{number}") == 1
    assert_invariants(world, number)


def test_a_spec_job_killed_before_its_commit_starts_again_on_a_base_that_moved(
    world: World, tmp_path: Path
) -> None:
    """The killed spec job had saved its charge (and where it began); the base then moved.
    The resumed spec begins on the base as it is now, so the base's new files are not
    taken for the spec writer's changes."""
    tag, release = "upsilon", tmp_path / "release"
    entry = spec_entry(tag)
    entry["turns"][0]["actions"][:0] = [
        {"run": f"touch {release}.started"},
        {"pause_until": str(release)},
    ]
    world.write_scenario([triage(tag), entry, implement_entry(tag)])
    number = world.open_issue(f"Add {tag} [{tag}]", f"{tag}() returns 1.").number
    assert world.drive(number, through="triage").returncode == 0
    job = world.start("job", "--issue", str(number), "--stage", "spec")
    try:
        wait_for("the spec writer to start", Path(f"{release}.started").exists, timeout=200)
        os.killpg(job.pid, signal.SIGKILL)
        job.communicate(timeout=60)
    finally:
        release.touch()
    push_to_base(world, tmp_path, "NOTES.md", "Someone else's change.\n")

    resumed = world.job(number, "spec", "--resume")
    assert resumed.returncode == 0, resumed.stderr
    state = world.state(number)
    assert state is not None
    assert state.stopped is None, state.stopped
    assert state.stage is Stage.IMPLEMENT
    assert state.start_sha == world.ref("refs/heads/main")
