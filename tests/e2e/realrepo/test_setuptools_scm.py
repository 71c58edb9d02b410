"""Issue 31, point 1: a setuptools-scm package with `write_to`, set up as a user would."""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.emulator.app.server import ForgeServer
from tests.e2e.helpers import assert_invariants
from tests.e2e.realrepo.built import (
    DRIVE_TIMEOUT,
    FIXED_PACKAGE,
    TEST,
    TEST_TIMEOUT,
    built_project,
    package,
    setup_command,
)
from tests.e2e.realrepo.project import (
    COUNT_SETUP,
    open_mul_issue,
    project_world,
    setup_runs,
    whole_issue,
)

pytestmark = pytest.mark.timeout(TEST_TIMEOUT)


def test_a_setuptools_scm_package_writing_its_version_file_merges_with_setup_run_once(
    forge_server: ForgeServer, tmp_path: Path, wheelhouse: Path
) -> None:
    """`pip install -e .` writes `src/calc/_version.py` once (no tree sets up on its own); every
    tree imports it with its own code, and fails-before-fix sees the new test fail."""
    src = built_project(tmp_path / "calc", "src")
    commands = {"setup": f"{setup_command(wheelhouse)} && {COUNT_SETUP}", "test": TEST}
    world = project_world(forge_server, tmp_path, commands=commands, src=src)
    world.write_scenario(whole_issue("scm", package("src"), FIXED_PACKAGE, own_test=True))
    number = open_mul_issue(world, "scm")

    done = world.drive(number, timeout=DRIVE_TIMEOUT)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "agent:merged" in world.labels(number), world.labels(number)
    assert world.base_file(package("src")) == FIXED_PACKAGE
    checks = [c.body for c in world.comments(number) if "### Checks" in c.body]
    assert checks, "no checks comment"
    assert "fails-before-fix: passed" in checks[-1], checks[-1]
    assert len(setup_runs(world)) == 1
    assert_invariants(world, number)
