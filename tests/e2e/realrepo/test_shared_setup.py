"""Issue 13, point 4: setup runs once per repository and dependency files, not before each run."""

from __future__ import annotations

from pathlib import Path

from conveyor.emulator.app.server import ForgeServer
from tests.e2e.helpers import assert_invariants
from tests.e2e.realrepo.project import (
    COUNT_SETUP,
    SETUP_RUNS,
    open_mul_issue,
    project_world,
    setup_runs,
    whole_issue,
    write_project,
)

# Every test needs what setup made: a fresh tree without it fails them all.
NEEDS_SETUP = (
    "import pathlib\n\nimport pytest\n\n\n"
    "@pytest.fixture(autouse=True)\n"
    "def _set_up() -> None:\n"
    "    assert pathlib.Path('build/ready').is_file(), 'setup did not run here'\n"
)


MAKES = "mkdir -p build && touch build/ready"


def test_setup_runs_once_for_a_whole_issue_and_every_tree_uses_what_it_made(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """Spec check, verify and fails-before-fix share one set-up environment, with a pip cache."""
    setup = f'echo "$PIP_CACHE_DIR" >> {SETUP_RUNS} && {MAKES}'
    src = write_project(tmp_path / "calc", {"tests/conftest.py": NEEDS_SETUP})
    world = project_world(forge_server, tmp_path, commands={"setup": setup}, src=src)
    world.write_scenario(whole_issue("shared"))
    number = open_mul_issue(world, "shared")

    done = world.drive(number)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "agent:merged" in world.labels(number), world.labels(number)
    lines = setup_runs(world)
    assert len(lines) == 1, lines
    assert Path(lines[0]).is_relative_to(world.home)
    assert_invariants(world, number)


def test_with_reuse_off_setup_runs_in_every_tree(forge_server: ForgeServer, tmp_path: Path) -> None:
    """`commands.reuse_setup = false` runs setup before each test run, as before."""
    setup = f"{COUNT_SETUP} && {MAKES}"
    src = write_project(tmp_path / "calc", {"tests/conftest.py": NEEDS_SETUP})
    commands = {"setup": setup, "reuse_setup": False}
    world = project_world(forge_server, tmp_path, commands=commands, src=src)
    world.write_scenario(whole_issue("unshared", own_test=True))
    number = open_mul_issue(world, "unshared")

    done = world.drive(number)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "agent:merged" in world.labels(number), world.labels(number)
    # One per tree tested: the spec's head, verify's head, fails-before-fix's worktree.
    assert len(setup_runs(world)) >= 3
