"""The spec writer's commit check on a real repository (SPEC-78..86)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conveyor.core.config import Commands, Paths
from conveyor.core.replies import Interface
from conveyor.git.plain import Tree
from conveyor.ops.local.spec_check import SpecCheck, check_spec_commits
from conveyor.ops.local.spec_guard import spec_test_findings
from conveyor.verify.context import Context
from tests.contract.verify.repo_kit import BASE_FILES, PYTEST, GitRepo

STUB = '"""Division."""\n\n\ndef div(a, b):\n    raise NotImplementedError\n'
FAILING_TEST = "from calc.div import div\n\n\ndef test_div():\n    assert div(6, 3) == 2\n"
DIV = Interface(
    name="div",
    kind="function",
    where="calc/div.py",
    status="new",
    signature="def div(a, b)",
    behaviours=["div divides"],
)


@pytest.fixture
def repo(tmp_path: Path) -> tuple[GitRepo, str]:
    """A repository at its base commit, and that commit's SHA."""
    work = GitRepo.init(tmp_path / "checkout")
    return work, work.commit(BASE_FILES, "base")


def check(
    repo: GitRepo,
    start: str,
    tmp_path: Path,
    interfaces: tuple[Interface, ...] = (DIV,),
    no_tests_reason: str | None = None,
) -> SpecCheck:
    """Run the commit check with pytest as the test command."""
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
    }
    commands = Commands(test=PYTEST, lint="true", typecheck="true")
    ctx = Context(repo.path, commands, env, tmp_path / "logs", tmp_path)
    return check_spec_commits(
        ctx, Paths(), start=start, interfaces=interfaces, no_tests_reason=no_tests_reason
    )


def test_a_stub_and_a_failing_test_pass_the_check(
    repo: tuple[GitRepo, str], tmp_path: Path
) -> None:
    """The allowed shape: a new interface's stub and a test that fails only on the stub."""
    work, start = repo
    work.commit({"calc/div.py": STUB, "tests/test_div.py": FAILING_TEST})
    assert check(work, start, tmp_path).findings == ()


def test_a_passed_check_keeps_the_spec_tests_by_node_id(
    repo: tuple[GitRepo, str], tmp_path: Path
) -> None:
    """Every later verify holds these ids: the report at the spec's head named them."""
    work, start = repo
    two = FAILING_TEST + "\n\ndef test_div_by_one():\n    assert div(5, 1) == 5\n"
    work.commit({"calc/div.py": STUB, "tests/test_div.py": two})
    seen = check(work, start, tmp_path).spec_tests
    assert seen is not None
    assert seen.read
    assert seen.files == ("tests/test_div.py",)
    assert seen.ids == ("tests/test_div.py::test_div", "tests/test_div.py::test_div_by_one")


def test_a_changed_code_file_is_named_as_not_allowed(
    repo: tuple[GitRepo, str], tmp_path: Path
) -> None:
    """SPEC-86: every offending file is named, with why."""
    work, start = repo
    fixed = BASE_FILES["calc/__init__.py"].replace("a - b", "a + b")
    work.commit({"calc/div.py": STUB, "tests/test_div.py": FAILING_TEST, "calc/__init__.py": fixed})
    findings = check(work, start, tmp_path).findings
    assert any(f.startswith("calc/__init__.py: ") for f in findings)
    assert not any(f.startswith("calc/div.py") for f in findings)


def test_tests_that_already_pass_are_refused(repo: tuple[GitRepo, str], tmp_path: Path) -> None:
    """SPEC-83: the test command must fail at the spec's head."""
    work, start = repo
    passing = "from calc import mul\n\n\ndef test_more():\n    assert mul(1, 1) == 1\n"
    work.commit({"tests/test_more.py": passing})
    findings = check(work, start, tmp_path, interfaces=()).findings
    assert any("passes at the spec's head" in f for f in findings)


def test_a_stub_that_breaks_the_existing_tests_is_refused(
    repo: tuple[GitRepo, str], tmp_path: Path
) -> None:
    """SPEC-84: with the spec writer's tests put back, the suite must still pass."""
    work, start = repo
    plugin = "def pytest_configure(config):\n    raise RuntimeError('stub breaks the suite')\n"
    hook = DIV.model_copy(update={"name": "pytest_configure", "where": "conftest.py"})
    work.commit({"conftest.py": plugin, "calc/div.py": STUB, "tests/test_div.py": FAILING_TEST})
    findings = check(work, start, tmp_path, interfaces=(DIV, hook)).findings
    assert any("put back as they were" in f for f in findings)


def test_no_test_file_is_refused_unless_no_tests_reason(
    repo: tuple[GitRepo, str], tmp_path: Path
) -> None:
    """SPEC-82: a ready spec ships a failing test, unless no_tests_reason is set."""
    work, start = repo
    assert check(work, start, tmp_path, interfaces=(), no_tests_reason="docs only").ok
    work.commit({"calc/div.py": STUB})
    findings = check(work, start, tmp_path).findings
    assert any("no test file changed" in f for f in findings)


def test_a_type_only_change_to_a_changed_interface_is_allowed(
    repo: tuple[GitRepo, str], tmp_path: Path
) -> None:
    """SPEC-67: annotations added to a changed interface's file pass; runtime edits do not."""
    work, start = repo
    typed = BASE_FILES["calc/__init__.py"].replace(
        "def mul(a, b):", "def mul(a: int, b: int) -> int:"
    )
    test = "from calc import mul\n\n\ndef test_neg():\n    assert mul(-1, 2) == 3\n"
    changed = DIV.model_copy(
        update={"name": "mul", "where": "calc/__init__.py", "status": "changed"}
    )
    work.commit({"calc/__init__.py": typed, "tests/test_neg.py": test})
    assert check(work, start, tmp_path, interfaces=(changed,)).ok
    work.commit({"calc/__init__.py": typed.replace("a * b", "a * b + 0")})
    findings = check(work, start, tmp_path, interfaces=(changed,)).findings
    assert any(f.startswith("calc/__init__.py: a changed interface's file") for f in findings)


def test_the_implementer_changing_or_deleting_a_spec_test_is_named(
    repo: tuple[GitRepo, str],
) -> None:
    """IMPL-12: each spec test changed or deleted since the spec's head is a finding."""
    work, start = repo
    spec_sha = work.commit({"calc/div.py": STUB, "tests/test_div.py": FAILING_TEST})
    work.commit({"calc/div.py": STUB.replace("raise NotImplementedError", "return a / b")})
    assert spec_test_findings(Tree.of(work.path), Paths(), start, spec_sha) == ()
    work.commit({"tests/test_div.py": "def test_div():\n    pass\n"})
    assert spec_test_findings(Tree.of(work.path), Paths(), start, spec_sha) == (
        "tests/test_div.py: the spec writer's test was changed; put it back as it was",
    )
    work.commit({"tests/test_div.py": None})
    (finding,) = spec_test_findings(Tree.of(work.path), Paths(), start, spec_sha)
    assert "was deleted" in finding


def test_a_spec_of_test_files_only_runs_the_suite_once(
    repo: tuple[GitRepo, str], tmp_path: Path
) -> None:
    """With only test files changed, the tree with them put back is the start's: no second run."""
    work, start = repo
    test = "from calc import mul\n\n\ndef test_neg():\n    assert mul(-1, 2) == 3\n"
    work.commit({"tests/test_neg.py": test})
    assert check(work, start, tmp_path, interfaces=()).ok
    assert (tmp_path / "logs" / "spec-test.log").is_file()
    assert not list((tmp_path / "logs").glob("spec-tests-reverted*"))
