"""fails-before-fix once (SPEC-77, CHK-17): the spec check's proof, and verify skipping on it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conveyor.core.config import Commands, Paths
from conveyor.core.replies import Interface
from conveyor.core.verify import Outcome, VerifyResult
from conveyor.ops.local.spec_check import check_spec_commits
from conveyor.verify import verify
from conveyor.verify.context import Context
from conveyor.verify.run import SharedDirs
from tests.contract.verify.repo_kit import BASE_FILES, PYTEST, GitRepo

pytestmark = pytest.mark.contract

ADD_TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
FIXED = BASE_FILES["calc/__init__.py"].replace("a - b", "a + b")
# A test of behaviour the base already has: it passes without the fix.
PASSING = "from calc import mul\n\n\ndef test_mul_zero():\n    assert mul(0, 4) == 0\n"
ADD = Interface(
    name="add",
    kind="function",
    where="calc/__init__.py",
    status="changed",
    signature="def add(a, b)",
    behaviours=["add adds"],
)
SKIP_NOTE = "the changed tests are the spec writer's, unchanged: its commit check saw them fail"


@pytest.fixture
def world(tmp_path: Path) -> tuple[GitRepo, str, Commands, dict[str, str]]:
    """A repository at its base, the base's SHA, the commands and a session-like env."""
    work = GitRepo.init(tmp_path / "checkout")
    base = work.commit(BASE_FILES, "base")
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
    }
    return work, base, Commands(test=PYTEST, lint="true", typecheck="true"), env


def spec_check(
    work: GitRepo, start: str, commands: Commands, env: dict[str, str], home: Path
) -> None:
    """The spec writer's commit check at the checkout's head, which must pass."""
    ctx = Context(work.path, commands, env, home / "spec-logs", home, baselines_dir=home / "b")
    verdict = check_spec_commits(ctx, Paths(), start=start, interfaces=(ADD,), no_tests_reason=None)
    assert verdict.ok, verdict


def run_verify(
    work: GitRepo, base: str, commands: Commands, env: dict[str, str], home: Path
) -> VerifyResult:
    """verify at the checkout's head, with the same base-failures folder as the spec check."""
    head = work.git("rev-parse", "HEAD")
    logs = home / "verify-logs"
    return verify(
        work.path,
        commands,
        env,
        Paths(),
        base_sha=base,
        head_sha=head,
        logs_dir=logs,
        work_dir=home,
        shared=SharedDirs(baselines_dir=home / "b"),
    )


def test_the_spec_writers_tests_unchanged_skip_fails_before_fix_with_a_note(
    world: tuple[GitRepo, str, Commands, dict[str, str]], tmp_path: Path
) -> None:
    """The spec check saw them fail before the fix: verify says so and runs nothing more."""
    work, base, commands, env = world
    work.commit({"tests/test_add.py": ADD_TEST}, "spec: a failing test")
    spec_check(work, base, commands, env, tmp_path)
    work.commit({"calc/__init__.py": FIXED}, "the fix")

    result = run_verify(work, base, commands, env, tmp_path)

    assert result.passed, result.failures()
    assert result.fails_before_fix.outcome is Outcome.SKIPPED
    assert result.fails_before_fix.runs == ()
    assert f"- fails-before-fix: skipped ({SKIP_NOTE}" in result.summary()
    assert not list((tmp_path / "verify-logs").glob("fails-before-fix*"))


def test_a_test_the_implementer_adds_runs_fails_before_fix_again(
    world: tuple[GitRepo, str, Commands, dict[str, str]], tmp_path: Path
) -> None:
    """A test file the spec check never saw: fails-before-fix runs the changed tests as before."""
    work, base, commands, env = world
    work.commit({"tests/test_add.py": ADD_TEST}, "spec: a failing test")
    spec_check(work, base, commands, env, tmp_path)
    work.commit({"calc/__init__.py": FIXED, "tests/test_more.py": PASSING}, "fix and a test")

    result = run_verify(work, base, commands, env, tmp_path)

    fbf = result.fails_before_fix
    assert fbf.outcome is Outcome.PASSED, fbf
    assert "tests/test_add.py::test_add" in fbf.reason
    assert fbf.runs, "fails-before-fix did not run"


def test_a_spec_test_changed_after_the_check_runs_again_and_stops_a_test_that_passes_unfixed(
    world: tuple[GitRepo, str, Commands, dict[str, str]], tmp_path: Path
) -> None:
    """A fix round rewrote the spec's test into one the base passes: fails-before-fix fails."""
    work, base, commands, env = world
    work.commit({"tests/test_add.py": ADD_TEST}, "spec: a failing test")
    spec_check(work, base, commands, env, tmp_path)
    work.commit({"calc/__init__.py": FIXED, "tests/test_add.py": PASSING}, "fix, test rewritten")

    result = run_verify(work, base, commands, env, tmp_path)

    assert result.fails_before_fix.outcome is Outcome.FAILED
    assert "pass with the non-test changes reverted" in result.fails_before_fix.reason
    assert not result.passed


def test_a_base_that_moved_since_the_spec_check_runs_fails_before_fix(
    world: tuple[GitRepo, str, Commands, dict[str, str]], tmp_path: Path
) -> None:
    """The proof holds for the tree the spec started from; measured from another, it runs.

    So does a stacked issue's prerequisite head that moved (CHK-12): its tree is another.
    """
    work, base, commands, env = world
    work.git("checkout", "-q", "-b", "issue")
    work.commit({"tests/test_add.py": ADD_TEST}, "spec: a failing test")
    spec_check(work, base, commands, env, tmp_path)
    work.commit({"calc/__init__.py": FIXED}, "the fix")
    work.git("checkout", "-q", "main")
    moved = work.commit({"README.md": "# calc, moved on\n"}, "main moves")
    work.git("checkout", "-q", "issue")
    work.git("merge", "-q", "--no-edit", moved)

    result = run_verify(work, moved, commands, env, tmp_path)

    assert result.fails_before_fix.outcome is Outcome.PASSED, result.fails_before_fix
    assert result.fails_before_fix.runs


def test_a_spec_with_no_tests_reason_leaves_no_proof(
    world: tuple[GitRepo, str, Commands, dict[str, str]], tmp_path: Path
) -> None:
    """No tests of the spec's: the implementer's own test is run before its fix."""
    work, base, commands, env = world
    ctx = Context(work.path, commands, env, tmp_path / "l", tmp_path, baselines_dir=tmp_path / "b")
    verdict = check_spec_commits(ctx, Paths(), start=base, interfaces=(), no_tests_reason="a fix")
    assert verdict.ok
    work.commit({"calc/__init__.py": FIXED, "tests/test_add.py": ADD_TEST}, "fix with its test")

    result = run_verify(work, base, commands, env, tmp_path)

    assert result.fails_before_fix.outcome is Outcome.PASSED
    assert result.fails_before_fix.runs
