"""Issue 31, point 5: a test command that names its test files inside a script."""

from __future__ import annotations

from pathlib import Path

from conveyor.emulator.app.server import ForgeServer
from tests.e2e.helpers import assert_invariants
from tests.e2e.realrepo.project import (
    FIXED,
    PYTEST,
    open_mul_issue,
    project_world,
    whole_issue,
    write_project,
)

# Where `tests/test_mul.py` is missing (the base, the spec's tests put back) pytest exits 4.
SCRIPT = f"#!/bin/sh\nexec {PYTEST} tests/test_add.py tests/test_mul.py\n"
FAILED_BEFORE = "fails-before-fix: passed (failing: tests/test_mul.py::test_mul_multiplies)"


def _merged_checks(forge_server: ForgeServer, tmp_path: Path, tag: str, **commands: str) -> str:
    """Drive the `mul` issue with test command `sh run-tests.sh` to a merge; its checks comment."""
    src = write_project(tmp_path / "calc", {"run-tests.sh": SCRIPT})
    commands = {"test": "sh run-tests.sh", **commands}
    world = project_world(forge_server, tmp_path, commands=commands, src=src)
    world.write_scenario(whole_issue(tag, own_test=True))
    number = open_mul_issue(world, tag)

    done = world.drive(number)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "agent:merged" in world.labels(number), world.labels(number)
    assert world.base_file("calc/__init__.py") == FIXED
    assert_invariants(world, number)
    checks = [c.body for c in world.comments(number) if "### Checks" in c.body]
    assert checks, "no checks comment"
    return checks[-1]


def test_a_script_test_command_merges_and_fails_before_fix_sees_the_new_test_fail(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """The spec check's run with the new test file removed cannot run (exit 4): skipped, no stop."""
    checks = _merged_checks(forge_server, tmp_path, "script")

    assert FAILED_BEFORE in checks, checks


def test_a_script_test_command_with_test_files_set_merges_and_fails_before_fix_runs(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """`commands.test_files` with `{tests}` is accepted and runs the new tests before the fix."""
    checks = _merged_checks(forge_server, tmp_path, "files", test_files=f"{PYTEST} {{tests}}")

    assert FAILED_BEFORE in checks, checks
