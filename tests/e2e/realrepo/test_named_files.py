"""Issue 13, point 3: a test command naming test files works when the spec adds a new one."""

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
)


def test_a_command_naming_the_new_test_file_merges_though_the_file_is_missing_at_the_base(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """Where `tests/test_mul.py` does not exist (tests put back), the command runs without it."""
    command = f"{PYTEST} tests/test_add.py tests/test_mul.py"
    world = project_world(forge_server, tmp_path, commands={"test": command})
    world.write_scenario(whole_issue("named"))
    number = open_mul_issue(world, "named")

    done = world.drive(number)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "agent:merged" in world.labels(number), world.labels(number)
    assert world.base_file("calc/__init__.py") == FIXED
    assert_invariants(world, number)
