"""Runs in other trees go beside the checkout's (issue 32): the spec check's two suites, and
verify's test run with fails-before-fix.

Each test run's conftest waits at a rendezvous until two runs have arrived (or gives up
after a while and fails the run): run one after the other, the first never meets the
second and the check fails, so these pin that the runs overlap without timing anything.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conveyor.core.config import Commands, Paths
from conveyor.core.replies import Interface
from conveyor.core.verify import Outcome
from conveyor.ops.local.spec_check import check_spec_commits
from conveyor.verify import verify
from conveyor.verify.context import Context
from tests.contract.verify.repo_kit import BASE_FILES, GitRepo

pytestmark = pytest.mark.contract

# Each pytest run leaves a mark and waits for a second one; alone for 60 s, it fails.
RENDEZVOUS = """import os, pathlib, time


def pytest_configure(config):
    place = pathlib.Path(os.environ["RENDEZVOUS"])
    (place / f"{os.getpid()}-{time.monotonic_ns()}").touch()
    deadline = time.monotonic() + 60
    while len(list(place.iterdir())) < 2:
        if time.monotonic() > deadline:
            raise RuntimeError("no other test run came beside this one")
        time.sleep(0.02)
"""
ADD_TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
FIXED = BASE_FILES["calc/__init__.py"].replace("a - b", "a + b")
STUB = '"""Division."""\n\n\ndef div(a, b):\n    raise NotImplementedError\n'
DIV_TEST = "from calc.div import div\n\n\ndef test_div():\n    assert div(6, 3) == 2\n"
DIV = Interface(
    name="div",
    kind="function",
    where="calc/div.py",
    status="new",
    signature="def div(a, b)",
    behaviours=["div divides"],
)


@pytest.fixture
def meeting(repo: GitRepo, env: dict[str, str], tmp_path: Path) -> tuple[str, dict[str, str]]:
    """The base with the rendezvous conftest committed, and the env naming its folder."""
    (tmp_path / "rendezvous").mkdir()
    base = repo.commit({"tests/conftest.py": RENDEZVOUS}, "rendezvous")
    return base, {**env, "RENDEZVOUS": str(tmp_path / "rendezvous")}


def test_the_spec_checks_head_and_reverted_suites_run_at_once_with_their_logs_and_bars(
    repo: GitRepo,
    meeting: tuple[str, dict[str, str]],
    commands: Commands,
    tmp_path: Path,
) -> None:
    """The check passes only if the reverted run came while the head's ran; each left its log
    and its timeline record."""
    base, env = meeting
    repo.commit({"calc/div.py": STUB, "tests/test_div.py": DIV_TEST}, "spec: a stub, a test")
    logs = tmp_path / "logs"
    ctx = Context(repo.path, commands, env, logs, tmp_path)

    verdict = check_spec_commits(ctx, Paths(), start=base, interfaces=(DIV,), no_tests_reason=None)

    assert verdict.ok, verdict
    for name in ("spec-test", "spec-tests-reverted-test"):
        assert (logs / f"{name}.log").read_text().strip()
        record = json.loads((logs / f"{name}.run.json").read_text())
        assert record["outcome"] in {"passed", "failed"}, record
    assert repo.git("worktree", "list").count("\n") == 0


def test_verifys_test_run_and_fails_before_fix_run_at_once(
    repo: GitRepo,
    meeting: tuple[str, dict[str, str]],
    commands: Commands,
    tmp_path: Path,
) -> None:
    """The head's tests pass and fails-before-fix counts only if each met the other."""
    base, env = meeting
    head = repo.commit({"calc/__init__.py": FIXED, "tests/test_add.py": ADD_TEST}, "the fix")

    result = verify(
        repo.path, commands, env, Paths(), base_sha=base, head_sha=head, logs_dir=tmp_path / "l"
    )

    assert result.passed, result.failures()
    assert result.fails_before_fix.outcome is Outcome.PASSED
    assert result.fails_before_fix.runs
    assert repo.git("worktree", "list").count("\n") == 0


def test_a_failing_head_stops_the_fails_before_fix_beside_it_and_leaves_no_worktree(
    repo: GitRepo, env: dict[str, str], commands: Commands, tmp_path: Path
) -> None:
    """fails-before-fix counts only once the tests pass: started beside them, it is dropped."""
    base = repo.git("rev-parse", "HEAD")
    wrong = FIXED.replace("a + b", "a + b + 1")
    head = repo.commit({"calc/__init__.py": wrong, "tests/test_add.py": ADD_TEST}, "not a fix")

    result = verify(
        repo.path, commands, env, Paths(), base_sha=base, head_sha=head, logs_dir=tmp_path / "l"
    )

    assert not result.passed
    assert result.fails_before_fix.outcome is Outcome.SKIPPED
    assert "counted only once the tests pass" in result.fails_before_fix.reason
    assert repo.git("worktree", "list").count("\n") == 0
