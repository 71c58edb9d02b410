"""Issue 13, point 1: a suite that already fails at the base does not stop the issue."""

from __future__ import annotations

from pathlib import Path

from conveyor.emulator.app.server import ForgeServer
from tests.e2e.helpers import assert_invariants
from tests.e2e.realrepo.project import (
    FIXED,
    NETWORK_TEST,
    open_mul_issue,
    project_world,
    whole_issue,
    write_project,
)


def test_a_suite_failing_at_the_base_merges_and_the_checks_comment_names_the_old_failure(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """The spec check, verify and fails-before-fix compare with the base's failures."""
    src = write_project(tmp_path / "calc", {"tests/test_network.py": NETWORK_TEST})
    world = project_world(forge_server, tmp_path, commands={}, src=src)
    world.write_scenario(whole_issue("oldfail"))
    number = open_mul_issue(world, "oldfail")

    done = world.drive(number)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "agent:merged" in world.labels(number), world.labels(number)
    assert world.base_file("calc/__init__.py") == FIXED
    pr = world.pr(number)
    assert pr is not None
    checks = [c.body for c in world.comments(number) if "### Checks" in c.body]
    assert checks, "no checks comment"
    assert "tests/test_network.py::test_fetches_the_index" in checks[-1]
    assert "already failing at the base" in checks[-1]
    assert_invariants(world, number)
