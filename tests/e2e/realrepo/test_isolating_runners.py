"""Issue 31, point 1: test commands that drop the tree from PYTHONPATH (`python -I`, `env -i`, tox).

Such a command imports whatever the venv's editable install points at: the shared
setup's folder, whose Python files are canaries. Conveyor sees a canary fire, throws
that run away and sets the tree up on its own (the documented fallback, "set up in
this tree" in the checks comment), so the tree's own code is what is tested.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.emulator.app.server import ForgeServer
from tests.e2e.helpers import assert_invariants
from tests.e2e.realrepo.built import (
    DRIVE_TIMEOUT,
    FIXED_PACKAGE,
    TEST_TIMEOUT,
    built_project,
    package,
    uv_setup_command,
)
from tests.e2e.realrepo.project import (
    COUNT_SETUP,
    open_mul_issue,
    project_world,
    setup_runs,
    whole_issue,
)

pytestmark = pytest.mark.timeout(TEST_TIMEOUT)

PYTEST_ARGS = "-m pytest -q -p no:cacheprovider"
# What tox does to a test run's environment: variables of its own, PYTHONPATH not
# passed on (tox 4's default), another one set.
TOX_LIKE = f"""#!/bin/sh
export TOX_ENV_NAME=py PYTHONHASHSEED=0 PYTHONPATH=tests
exec .venv/bin/python {PYTEST_ARGS} "$@"
"""
COMMANDS = {
    "isolated": f".venv/bin/python -I {PYTEST_ARGS}",
    "env-i": f"env -i PATH=/usr/bin:/bin .venv/bin/python {PYTEST_ARGS}",
    "tox-like": "sh run-tox.sh",
}
# Where the checks comment says outcomes were read: `env -i` drops PYTEST_ADDOPTS too,
# so its pytest writes no JUnit report and the run's output is read.
SOURCES = {
    "isolated": "the JUnit XML report",
    "env-i": "the output (no JUnit XML report)",
    "tox-like": "the JUnit XML report",
}


@pytest.mark.parametrize("shape", sorted(COMMANDS))
def test_a_command_bypassing_pythonpath_merges_with_setup_in_the_tree_testing_its_own_code(
    forge_server: ForgeServer, tmp_path: Path, wheelhouse: Path, shape: str
) -> None:
    """The canary fires once; from then on each tree is set up on its own and the issue merges."""
    src = built_project(tmp_path / "calc", "src", {"run-tox.sh": TOX_LIKE})
    setup = f"{uv_setup_command(wheelhouse)} && {COUNT_SETUP}"
    world = project_world(
        forge_server, tmp_path, commands={"setup": setup, "test": COMMANDS[shape]}, src=src
    )
    world.write_scenario(whole_issue(shape, package("src"), FIXED_PACKAGE, own_test=True))
    number = open_mul_issue(world, shape)

    done = world.drive(number, timeout=DRIVE_TIMEOUT)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "agent:merged" in world.labels(number), world.labels(number)
    assert world.base_file(package("src")) == FIXED_PACKAGE
    checks = [c.body for c in world.comments(number) if "### Checks" in c.body]
    assert checks, "no checks comment"
    assert "set up in this tree: the test command reached the shared setup's copy" in checks[-1]
    assert "fails-before-fix: passed (failing: tests/test_mul.py" in checks[-1], checks[-1]
    assert f"- test: passed; outcomes read from {SOURCES[shape]}" in checks[-1], checks[-1]
    assert len(setup_runs(world)) > 1
    assert_invariants(world, number)


def test_a_non_editable_install_reached_by_python_i_is_caught_and_the_tree_sets_up_on_its_own(
    forge_server: ForgeServer, tmp_path: Path, wheelhouse: Path
) -> None:
    """`pip install .` copies the build's code into the venv; `python -I` imports that copy.

    The copy is the code as it was when setup ran, not the tree's: its files are canaries
    too, so the run is thrown away and each tree sets up (installs its own code) itself.
    """
    src = built_project(tmp_path / "calc", "src")
    setup = f"{uv_setup_command(wheelhouse).replace(' -e ', ' ')} && {COUNT_SETUP}"
    world = project_world(
        forge_server, tmp_path, commands={"setup": setup, "test": COMMANDS["isolated"]}, src=src
    )
    world.write_scenario(whole_issue("copied", package("src"), FIXED_PACKAGE))
    number = open_mul_issue(world, "copied")

    done = world.drive(number, timeout=DRIVE_TIMEOUT)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "agent:merged" in world.labels(number), world.labels(number)
    assert world.base_file(package("src")) == FIXED_PACKAGE
    checks = [c.body for c in world.comments(number) if "### Checks" in c.body]
    assert checks, "no checks comment"
    assert "set up in this tree: the test command reached the shared setup's copy" in checks[-1]
    assert len(setup_runs(world)) > 1
    assert_invariants(world, number)
