"""verify reads test runs: failures the base had, environment errors, shared setup (issue 13)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.core.config import Commands, Paths
from conveyor.core.verify import Outcome
from conveyor.verify import verify
from conveyor.verify.run import SharedDirs
from tests.contract.verify.repo_kit import PY, GitRepo

pytestmark = pytest.mark.contract

FIXED_ADD = (
    '"""A tiny calculator."""\n\n\ndef add(a, b):\n    return a + b\n\n\n'
    "def mul(a, b):\n    return a * b\n"
)
ADD_TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
OFFLINE = "def test_download():\n    raise ConnectionError('offline')\n"


def _shared(tmp_path: Path) -> SharedDirs:
    return SharedDirs(
        envs_dir=tmp_path / "envs", baselines_dir=tmp_path / "baselines", test_globs=Paths().tests
    )


def test_a_failure_the_base_already_had_does_not_hold_verify_back(
    repo: GitRepo, env: dict[str, str], commands: Commands, tmp_path: Path
) -> None:
    """The test command passes with a reason naming the old failure; fails-before-fix counts."""
    repo.commit({"tests/test_net.py": OFFLINE}, "an offline-failing test")
    base = repo.git("rev-parse", "HEAD")
    head = repo.commit({"calc/__init__.py": FIXED_ADD, "tests/test_add.py": ADD_TEST})
    result = verify(
        repo.path, commands, env, Paths(), base_sha=base, head_sha=head,
        logs_dir=tmp_path / "logs", shared=_shared(tmp_path),
    )  # fmt: skip
    assert result.passed, result.failures()
    test = result.command("test")
    assert test is not None
    assert "tests/test_net.py::test_download" in test.reason
    assert "already failing at the base" in test.reason
    assert result.fails_before_fix.outcome is Outcome.PASSED
    assert "tests/test_add.py::test_add" in result.fails_before_fix.reason


def test_a_new_failure_beside_old_ones_still_fails_and_names_both(
    repo: GitRepo, env: dict[str, str], commands: Commands, tmp_path: Path
) -> None:
    """Only failures the base did not have are the change's."""
    repo.commit({"tests/test_net.py": OFFLINE}, "an offline-failing test")
    base = repo.git("rev-parse", "HEAD")
    head = repo.commit({"tests/test_add.py": ADD_TEST})
    result = verify(
        repo.path, commands, env, Paths(), base_sha=base, head_sha=head,
        logs_dir=tmp_path / "logs", shared=_shared(tmp_path),
    )  # fmt: skip
    test = result.command("test")
    assert test is not None
    assert test.outcome is Outcome.FAILED
    assert "new failures: tests/test_add.py::test_add" in test.reason


def test_a_timeout_without_the_fix_is_an_environment_error_not_a_pass(
    repo: GitRepo, env: dict[str, str], tmp_path: Path
) -> None:
    """Before issue 13 a timed-out reverted run counted as the tests failing."""
    base = repo.git("rev-parse", "HEAD")
    slow = "import time\n\nfrom calc import add\n\n\ndef test_add():\n"
    slow += "    if add(2, 3) != 5:\n        time.sleep(300)\n"
    head = repo.commit({"calc/__init__.py": FIXED_ADD, "tests/test_add.py": slow})
    # Long enough for the head's passing run to start on a loaded machine (3 s was not).
    commands = Commands(test=f"{PY} -m pytest -q -p no:cacheprovider", timeout_seconds=10)
    result = verify(
        repo.path, commands, env, Paths(), base_sha=base, head_sha=head,
        logs_dir=tmp_path / "logs", shared=_shared(tmp_path),
    )  # fmt: skip
    assert result.fails_before_fix.outcome is Outcome.ENVIRONMENT
    assert "timed out" in result.environment


def test_setup_runs_once_and_its_products_reach_every_tree_unseen_by_git(
    repo: GitRepo, env: dict[str, str], tmp_path: Path
) -> None:
    """The fails-before-fix worktree reuses the checkout's environment; git status stays clean."""
    count = tmp_path / "setups"
    setup = f"echo x >> {count} && mkdir -p made && touch made/ok"
    needs = "import pathlib\n\n\ndef test_made():\n    assert pathlib.Path('made/ok').exists()\n"
    base = repo.git("rev-parse", "HEAD")
    head = repo.commit(
        {"calc/__init__.py": FIXED_ADD, "tests/test_add.py": ADD_TEST, "tests/test_m.py": needs}
    )
    commands = Commands(setup=setup, test=f"{PY} -m pytest -q -p no:cacheprovider")
    result = verify(
        repo.path, commands, env, Paths(), base_sha=base, head_sha=head,
        logs_dir=tmp_path / "logs", shared=_shared(tmp_path),
    )  # fmt: skip
    assert result.passed, result.failures()
    assert count.read_text().splitlines() == ["x"]
    assert repo.git("status", "--porcelain") == ""
    again = verify(
        repo.path, commands, env, Paths(), base_sha=base, head_sha=head,
        logs_dir=tmp_path / "logs2", shared=_shared(tmp_path),
    )  # fmt: skip
    assert again.passed
    assert count.read_text().splitlines() == ["x"]
    setup_run = again.command("setup")
    assert setup_run is not None
    assert "reused" in setup_run.reason
    changed = repo.commit({"requirements.txt": "attrs\n"}, "a dependency")
    verify(
        repo.path, commands, env, Paths(), base_sha=base, head_sha=changed,
        logs_dir=tmp_path / "logs3", shared=_shared(tmp_path),
    )  # fmt: skip
    assert len(count.read_text().splitlines()) == 2
