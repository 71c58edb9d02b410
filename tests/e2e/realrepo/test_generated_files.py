"""Issue 31, point 1: what the shared setup generates inside the package reaches every tree."""

from __future__ import annotations

from pathlib import Path

from conveyor.emulator.app.server import ForgeServer
from tests.e2e.helpers import assert_invariants
from tests.e2e.realrepo.project import (
    COUNT_SETUP,
    FIXED,
    open_mul_issue,
    project_world,
    setup_runs,
    whole_issue,
    write_project,
)

# The module setup generates, as setuptools-scm's `write_to` or a parser generator would:
# ignored by git, so no job tree has it unless the shared setup hands it over.
GENERATED = "calc/_version.py"
VERSION_TEST = (
    "from calc._version import version\n\n\n"
    "def test_the_version_is_generated():\n    assert version == '0.1'\n"
)


def test_a_module_setup_generates_inside_the_package_is_in_every_tree_and_the_issue_merges(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """Setup runs once, yet the spec check, verify and fails-before-fix all import its module."""
    setup = f"{COUNT_SETUP} && printf 'version = \"0.1\"\\n' > {GENERATED}"
    extra = {
        ".gitignore": f"build/\n__pycache__/\n{GENERATED}\n",
        "tests/test_version.py": VERSION_TEST,
    }
    src = write_project(tmp_path / "calc", extra)
    world = project_world(forge_server, tmp_path, commands={"setup": setup}, src=src)
    world.write_scenario(whole_issue("generated"))
    number = open_mul_issue(world, "generated")

    done = world.drive(number)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "agent:merged" in world.labels(number), world.labels(number)
    assert world.base_file("calc/__init__.py") == FIXED
    assert len(setup_runs(world)) == 1
    assert_invariants(world, number)
