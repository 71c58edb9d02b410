"""Issue 31, point 2: a suite whose tests run pytest sessions of their own (as pytest's does)."""

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

# A passing test whose inner session fails to collect a file; `-rA` prints its output,
# so the outer run's text holds an inner "ERROR collecting" of a file no change touched.
INNER_TEST = """import subprocess
import sys


def test_an_inner_session_reports_a_collection_error(tmp_path):
    (tmp_path / "test_mark_with_wrong_marker.py").write_text("import nowhere\\n")
    argv = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", str(tmp_path)]
    done = subprocess.run(argv, capture_output=True, text=True, cwd=tmp_path, check=False)
    print(done.stdout)
    assert done.returncode == 2, done.stdout
"""


def test_collection_errors_printed_by_inner_sessions_are_not_read_as_the_suites_own(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """Outcomes come from the JUnit report, so the inner session's errors stop nothing."""
    src = write_project(tmp_path / "calc", {"tests/test_inner.py": INNER_TEST})
    for reuse in (True, False):
        world = project_world(
            forge_server,
            tmp_path / f"reuse-{reuse}",
            commands={"test": f"{PYTEST} -rA", "setup": "true", "reuse_setup": reuse},
            src=src,
        )
        tag = f"inner{reuse}"
        world.write_scenario(whole_issue(tag))
        number = open_mul_issue(world, tag)

        done = world.drive(number)

        assert done.returncode == 0, done.stdout + done.stderr
        assert "agent:merged" in world.labels(number), world.labels(number)
        assert world.base_file("calc/__init__.py") == FIXED
        checks = [c.body for c in world.comments(number) if "### Checks" in c.body]
        assert checks, "no checks comment"
        assert "outcomes read from the JUnit XML report" in checks[-1]
        assert_invariants(world, number)
