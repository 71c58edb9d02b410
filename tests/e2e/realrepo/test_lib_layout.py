"""Issue 31, point 1: a `lib/` layout (`package_dir = {"" = "lib"}`) with a generated module."""

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


def test_a_lib_layout_merges_with_setup_run_once_testing_the_trees_own_code(
    forge_server: ForgeServer, tmp_path: Path, wheelhouse: Path
) -> None:
    """The editable install names `lib/`, which goes first on PYTHONPATH in every tree.

    Had any run imported the shared setup's copy instead (its files are canaries),
    that tree would have set up on its own: setup ran once, so none did.
    """
    src = built_project(tmp_path / "calc", "lib")
    commands = {"setup": f"{setup_command(wheelhouse)} && {COUNT_SETUP}", "test": TEST}
    world = project_world(forge_server, tmp_path, commands=commands, src=src)
    world.write_scenario(whole_issue("lib", package("lib"), FIXED_PACKAGE, own_test=True))
    number = open_mul_issue(world, "lib")

    done = world.drive(number, timeout=DRIVE_TIMEOUT)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "agent:merged" in world.labels(number), world.labels(number)
    assert world.base_file(package("lib")) == FIXED_PACKAGE
    checks = [c.body for c in world.comments(number) if "### Checks" in c.body]
    assert checks, "no checks comment"
    assert "fails-before-fix: passed" in checks[-1], checks[-1]
    assert len(setup_runs(world)) == 1
    assert_invariants(world, number)
