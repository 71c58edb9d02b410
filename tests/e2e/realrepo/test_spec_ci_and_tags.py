"""Issue 13, points 5 and 6: CI skips the spec commit; job checkouts carry the repository's tags."""

from __future__ import annotations

import time
from pathlib import Path

from conveyor.emulator.app.server import ForgeServer
from conveyor.forge.types import CheckRun
from conveyor.testing.world import ACCOUNT, World
from tests.e2e.helpers import assert_invariants
from tests.e2e.realrepo.project import (
    PYTEST,
    git_project,
    open_mul_issue,
    project_world,
    whole_issue,
)


def _ci_done(world: World, sha: str, timeout: float = 60) -> CheckRun:
    """The forge's `ci` check run on `sha`, once completed."""
    deadline = time.monotonic() + timeout
    while True:
        runs = [r for r in world.forge_as(ACCOUNT).list_check_runs(sha) if r.name == "ci"]
        if runs and runs[-1].status == "completed":
            return runs[-1]
        assert time.monotonic() < deadline, f"no completed ci run on {sha}: {runs}"
        time.sleep(0.2)


def test_ci_skips_the_spec_commit_and_passes_on_the_fix(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """The spec commit's tests fail by design: its CI is skipped, never red; the fix's is green."""
    world = project_world(forge_server, tmp_path, commands={}, ci=PYTEST)
    world.write_scenario(whole_issue("specci"))
    number = open_mul_issue(world, "specci")

    spec = world.drive(number, through="spec")
    assert spec.returncode == 0, spec.stdout + spec.stderr
    pr = world.pr(number)
    assert pr is not None
    assert _ci_done(world, pr.head_sha).conclusion == "skipped"

    done = world.drive(number)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "agent:merged" in world.labels(number), world.labels(number)
    merged = world.pr(number)
    assert merged is not None
    assert _ci_done(world, merged.head_sha).conclusion == "success"
    assert_invariants(world, number)


def test_setup_reading_the_repositorys_tags_works_in_job_checkouts(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """A repository imported from git keeps its tags; setup and tests see them (setuptools-scm)."""
    src = git_project(tmp_path / "calc", tag="v0.1")
    describe = "git describe --tags --abbrev=0"
    commands = {"setup": f"{describe} > build-version.txt", "test": f"{describe} && {PYTEST}"}
    world = project_world(forge_server, tmp_path, commands=commands, src=src)
    assert world.ref("refs/tags/v0.1") is not None
    world.write_scenario(whole_issue("tags"))
    number = open_mul_issue(world, "tags")

    done = world.drive(number)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "agent:merged" in world.labels(number), world.labels(number)
    assert_invariants(world, number)
