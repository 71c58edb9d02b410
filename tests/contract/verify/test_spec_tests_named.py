"""verify holds a head unverified unless the spec writer's tests ran and passed, by name.

The base's `calc.add` subtracts; the spec writer's `tests/test_add.py::test_add` fails
there. Each cheating head leaves `add` broken and makes that test stop counting without
touching its file; verify's spec-tests check names the test and what happened to it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.core.config import Commands, Paths
from conveyor.core.spec_tests import SpecTests
from conveyor.core.verify import Outcome, VerifyResult
from conveyor.verify import verify
from conveyor.verify.judges import Judging
from tests.contract.verify.repo_kit import GitRepo

pytestmark = pytest.mark.contract

ADD_TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
FIXED = (
    '"""A tiny calculator."""\n\n\ndef add(a, b):\n    return a + b\n\n\n'
    "def mul(a, b):\n    return a * b\n"
)
SPEC = SpecTests(files=("tests/test_add.py",), ids=("tests/test_add.py::test_add",), read=True)
INI = "[pytest]\npythonpath = .\ntestpaths = tests\n"
MISSING = "missing from the report"

# Each way to make the spec's failing test stop counting, and what the check says of it.
CHEATS: dict[str, tuple[dict[str, str], str]] = {
    "a root conftest deselects it in pytest_collection_modifyitems": (
        {
            "conftest.py": (
                "def pytest_collection_modifyitems(config, items):\n"
                "    items[:] = [i for i in items if 'test_add' not in i.nodeid]\n"
            )
        },
        MISSING,
    ),
    "a tests/conftest.py skips it with an autouse fixture": (
        {
            "tests/conftest.py": (
                "import pytest\n\n\n@pytest.fixture(autouse=True)\n"
                "def _quiet(request):\n"
                "    if request.node.name == 'test_add':\n"
                "        pytest.skip('flaky')\n"
            )
        },
        "skipped: flaky",
    ),
    "a conftest marks it xfail at collection": (
        {
            "tests/conftest.py": (
                "import pytest\n\n\ndef pytest_collection_modifyitems(items):\n"
                "    for item in items:\n"
                "        item.add_marker(pytest.mark.xfail(reason='later'))\n"
            )
        },
        "xfailed: later",
    ),
    "addopts --deselects it": (
        {"pytest.ini": INI + "addopts = --deselect tests/test_add.py::test_add\n"},
        MISSING,
    ),
    "addopts -k leaves it out": ({"pytest.ini": INI + "addopts = -k 'not test_add'\n"}, MISSING),
    "addopts --ignore leaves its file out": (
        {"pytest.ini": INI + "addopts = --ignore=tests/test_add.py\n"},
        MISSING,
    ),
    "python_files narrows collection": (
        {"pytest.ini": INI + "python_files = test_mul.py\n"},
        MISSING,
    ),
    "python_functions narrows collection": (
        {"pytest.ini": INI + "python_functions = test_mul\n"},
        MISSING,
    ),
    "testpaths points elsewhere": (
        {"pytest.ini": "[pytest]\npythonpath = .\ntestpaths = tests/test_mul.py\n"},
        MISSING,
    ),
    "collect_ignore in a conftest": (
        {"tests/conftest.py": "collect_ignore = ['test_add.py']\n"},
        MISSING,
    ),
    "a pytest_ignore_collect hook": (
        {
            "conftest.py": (
                "def pytest_ignore_collect(collection_path, config):\n"
                "    return collection_path.name == 'test_add.py'\n"
            )
        },
        MISSING,
    ),
    "a module-level skip in the tests package's __init__": (
        {"tests/__init__.py": "import pytest\n\npytest.skip('later', allow_module_level=True)\n"},
        "skipped",
    ),
    "the JUnit plugin switched off": (
        {"pytest.ini": INI + "addopts = -p no:junitxml\n"},
        "wrote no JUnit report",
    ),
    "os._exit(0) in a conftest": (
        {"conftest.py": "import os\n\nos._exit(0)\n"},
        "wrote no JUnit report",
    ),
}


def _spec_head(repo: GitRepo) -> tuple[str, str]:
    base = repo.git("rev-parse", "HEAD")
    spec = repo.commit({"tests/test_add.py": ADD_TEST}, "spec: a failing test of add")
    return base, spec


def _verify(repo: GitRepo, env: dict[str, str], commands: Commands, tmp: Path) -> VerifyResult:
    base = repo.git("rev-list", "--max-parents=0", "HEAD")
    head = repo.git("rev-parse", "HEAD")
    return verify(
        repo.path,
        commands,
        env,
        Paths(),
        base_sha=base,
        head_sha=head,
        logs_dir=tmp,
        judging=Judging(spec=SPEC),
    )


def _named(result: VerifyResult) -> str:
    check = next(c for c in result.checks if c.name == "spec-tests")
    assert check.outcome is Outcome.FAILED, check
    return check.reason


@pytest.mark.parametrize("way", sorted(CHEATS))
def test_a_spec_test_made_to_stop_counting_leaves_the_head_unverified(
    way: str, repo: GitRepo, env: dict[str, str], commands: Commands, tmp_path: Path
) -> None:
    """The test command passes (or is read as passing), yet the spec's test is named."""
    _spec_head(repo)
    files, said = CHEATS[way]
    repo.commit(files, f"cheat: {way}")
    result = _verify(repo, env, commands, tmp_path / "logs")
    assert not result.passed
    reason = _named(result)
    assert said in reason, reason
    if "JUnit" not in said:
        assert "tests/test_add.py::test_add" in reason, reason


def test_the_honest_fix_passes_the_spec_tests_check(
    repo: GitRepo, env: dict[str, str], commands: Commands, tmp_path: Path
) -> None:
    """The spec's test ran and passed at the fixed head."""
    _spec_head(repo)
    repo.commit({"calc/__init__.py": FIXED}, "add adds")
    result = _verify(repo, env, commands, tmp_path / "logs")
    assert result.passed, result.failures()
    check = next(c for c in result.checks if c.name == "spec-tests")
    assert check.outcome is Outcome.PASSED
    assert "spec-tests: passed" in result.summary()
