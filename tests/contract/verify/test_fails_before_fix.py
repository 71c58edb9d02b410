"""verify against a real repository: the commands, fails-before-fix and its skips."""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.core.config import Commands, Paths
from conveyor.core.verify import Outcome
from conveyor.verify import VerifyInputError, verify
from tests.contract.verify.repo_kit import PY, GitRepo

pytestmark = pytest.mark.contract

FIXED_ADD = (
    '"""A tiny calculator."""\n\n\ndef add(a, b):\n    return a + b\n\n\n'
    "def mul(a, b):\n    return a * b\n"
)
ADD_TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


def test_a_fix_whose_new_test_fails_without_it_is_counted(
    repo: GitRepo, env: dict[str, str], commands: Commands, tmp_path: Path
) -> None:
    """The fixed head passes every command and its test fails with the fix reverted."""
    base = repo.git("rev-parse", "HEAD")
    head = repo.commit({"calc/__init__.py": FIXED_ADD, "tests/test_add.py": ADD_TEST})
    logs = tmp_path / "logs"
    result = verify(repo.path, commands, env, Paths(), base_sha=base, head_sha=head, logs_dir=logs)
    assert result.passed, result.failures()
    assert [c.outcome for c in result.commands] == [
        Outcome.SKIPPED,
        Outcome.PASSED,
        Outcome.PASSED,
        Outcome.PASSED,
    ]
    assert result.fails_before_fix.outcome is Outcome.PASSED
    assert result.fails_before_fix.paths == ("calc/__init__.py",)
    reverted_run = result.fails_before_fix.runs[-1]
    assert reverted_run.outcome is Outcome.FAILED
    assert "test_add" in reverted_run.tail
    for run in (*result.commands[1:], reverted_run):
        assert run.log_path is not None
        assert Path(run.log_path).parent == logs
        assert Path(run.log_path).read_text().strip()
    assert "lint clean" in result.commands[2].tail
    assert repo.git("worktree", "list").count("\n") == 0


def test_a_fix_in_a_new_module_is_counted_with_the_module_removed(
    repo: GitRepo, env: dict[str, str], commands: Commands, tmp_path: Path
) -> None:
    """Added code files are deleted in the reverted worktree, so their tests fail there."""
    base = repo.git("rev-parse", "HEAD")
    module = "def double(n):\n    return 2 * n\n"
    test = "from calc.extra import double\n\n\ndef test_double():\n    assert double(4) == 8\n"
    head = repo.commit({"calc/extra.py": module, "tests/test_extra.py": test})
    result = verify(
        repo.path, commands, env, Paths(), base_sha=base, head_sha=head, logs_dir=tmp_path / "l"
    )
    assert result.passed, result.failures()
    assert result.fails_before_fix.outcome is Outcome.PASSED
    assert result.fails_before_fix.paths == ("calc/extra.py",)
    assert (repo.path / "calc" / "extra.py").is_file()


def test_a_fix_whose_test_passes_without_it_fails_fails_before_fix(
    repo: GitRepo, env: dict[str, str], commands: Commands, tmp_path: Path
) -> None:
    """A test of behaviour the base already had does not prove the change."""
    base = repo.git("rev-parse", "HEAD")
    refactor = FIXED_ADD.replace("return a * b", "return b * a")
    more = "from calc import mul\n\n\ndef test_mul_zero():\n    assert mul(0, 4) == 0\n"
    head = repo.commit({"calc/__init__.py": refactor, "tests/test_more.py": more})
    result = verify(
        repo.path, commands, env, Paths(), base_sha=base, head_sha=head, logs_dir=tmp_path / "l"
    )
    assert result.command("test") is not None
    assert result.fails_before_fix.outcome is Outcome.FAILED
    assert "pass with the non-test changes reverted" in result.fails_before_fix.reason
    assert not result.passed
    assert any(line.startswith("fails-before-fix") for line in result.failures())


def test_a_docs_only_change_skips_fails_before_fix_with_the_reason(
    repo: GitRepo, env: dict[str, str], commands: Commands, tmp_path: Path
) -> None:
    """Only non-code paths changed: nothing to revert, and the result says so."""
    base = repo.git("rev-parse", "HEAD")
    head = repo.commit({"docs/guide.md": "# Guide\n\nMore.\n", "README.md": "# calc!\n"})
    result = verify(
        repo.path, commands, env, Paths(), base_sha=base, head_sha=head, logs_dir=tmp_path / "l"
    )
    assert result.fails_before_fix.outcome is Outcome.SKIPPED
    assert "non-code" in result.fails_before_fix.reason
    assert result.passed


def test_a_comments_only_python_change_skips_fails_before_fix(
    repo: GitRepo, env: dict[str, str], commands: Commands, tmp_path: Path
) -> None:
    """Comments and docstrings in Python code are not a code change."""
    base = repo.git("rev-parse", "HEAD")
    commented = (
        '"""A tiny calculator, documented."""\n\n# Note: add is wrong on purpose.\n'
        'def add(a, b):\n    """Add, or so it claims."""\n    return a - b  # sic\n\n\n'
        "def mul(a, b):\n    return a * b\n"
    )
    head = repo.commit({"calc/__init__.py": commented})
    result = verify(
        repo.path, commands, env, Paths(), base_sha=base, head_sha=head, logs_dir=tmp_path / "l"
    )
    assert result.fails_before_fix.outcome is Outcome.SKIPPED
    assert "comments and docstrings only" in result.fails_before_fix.reason
    assert result.passed


def test_failing_tests_at_the_head_fail_verify_and_skip_fails_before_fix(
    repo: GitRepo, env: dict[str, str], commands: Commands, tmp_path: Path
) -> None:
    """fails-before-fix counts only once the tests pass at the head."""
    base = repo.git("rev-parse", "HEAD")
    head = repo.commit({"tests/test_add.py": ADD_TEST})
    result = verify(
        repo.path, commands, env, Paths(), base_sha=base, head_sha=head, logs_dir=tmp_path / "l"
    )
    test = result.command("test")
    assert test is not None
    assert test.outcome is Outcome.FAILED
    assert test.exit_code not in (0, None)
    assert result.fails_before_fix.outcome is Outcome.SKIPPED
    assert not result.passed


def test_a_failing_setup_holds_back_every_later_command(
    repo: GitRepo, env: dict[str, str], tmp_path: Path
) -> None:
    """When setup fails, test, lint and typecheck are skipped, naming the setup (issue 13).

    A failing setup is an environment error, not a failure of the change.
    """
    base = repo.git("rev-parse", "HEAD")
    head = repo.commit({"calc/__init__.py": FIXED_ADD})
    commands = Commands(setup=f'{PY} -c "raise SystemExit(3)"', test=f'{PY} -c "pass"')
    result = verify(
        repo.path, commands, env, Paths(), base_sha=base, head_sha=head, logs_dir=tmp_path / "l"
    )
    setup, *rest = result.commands
    assert (setup.outcome, setup.exit_code) == (Outcome.ENVIRONMENT, 3)
    assert all(r.outcome is Outcome.SKIPPED and "setup" in r.reason for r in rest)
    assert not result.passed
    assert result.environment.startswith("setup (")


def test_tests_only_runs_setup_and_test_but_not_fails_before_fix(
    repo: GitRepo, env: dict[str, str], commands: Commands, tmp_path: Path
) -> None:
    """After a clean rebase at merge, only setup, test and the lockfile check run."""
    base = repo.git("rev-parse", "HEAD")
    head = repo.commit({"calc/__init__.py": FIXED_ADD, "tests/test_add.py": ADD_TEST})
    with_setup = commands.model_copy(update={"setup": f"{PY} -c \"print('set up')\""})
    result = verify(
        repo.path,
        with_setup,
        env,
        Paths(),
        base_sha=base,
        head_sha=head,
        logs_dir=tmp_path / "l",
        tests_only=True,
    )
    outcomes = {c.name: c.outcome for c in result.commands}
    assert outcomes == {
        "setup": Outcome.PASSED,
        "test": Outcome.PASSED,
        "lint": Outcome.SKIPPED,
        "typecheck": Outcome.SKIPPED,
    }
    assert result.fails_before_fix.outcome is Outcome.SKIPPED
    assert result.tests_only
    assert result.passed


def test_verify_refuses_a_checkout_that_is_not_at_the_head(
    repo: GitRepo, env: dict[str, str], commands: Commands, tmp_path: Path
) -> None:
    """Verifying one commit while the checkout shows another is a clear error."""
    base = repo.git("rev-parse", "HEAD")
    repo.commit({"calc/__init__.py": FIXED_ADD})
    with pytest.raises(VerifyInputError, match="not at the head"):
        verify(repo.path, commands, env, Paths(), base_sha=base, head_sha=base, logs_dir=tmp_path)
