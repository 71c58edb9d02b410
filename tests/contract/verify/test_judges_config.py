"""The judges' configuration is the base's: a change to what configures a check is judged
with the judges' own version, or held for a person.

The implementer of `tally.unique.count_unique` writes code that ruff or `mypy --strict`
fails, or leaves the behaviour out, and changes the configuration so that the head's own
checks pass. verify runs them again with the base's configuration put back (or, for the
test runner's, the spec's tests with the base's test configuration) and names the file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.core.verify import Outcome
from conveyor.verify.judges import Judging
from tests.contract.verify.tally_kit import (
    HONEST,
    LINT_FAILS,
    PYPROJECT,
    SPEC,
    STUB,
    TYPES_FAIL,
    UNIQUE,
    check,
    tally_repo,
    verify_cheat,
    verify_head,
)

pytestmark = pytest.mark.contract

LOOSER_RUFF = PYPROJECT.replace(
    "line-length = 100\n", 'line-length = 100\nextend-exclude = ["src/tally/unique.py"]\n'
)
PER_FILE = PYPROJECT + '\n[tool.ruff.lint.per-file-ignores]\n"src/tally/unique.py" = ["F401"]\n'
OVERRIDE = PYPROJECT + '\n[[tool.mypy.overrides]]\nmodule = "tally.unique"\nignore_errors = true\n'
PATCHED = "import tally.unique\n\ntally.unique.count_unique = lambda words: len(set(words))\n"

CHEATS: dict[str, tuple[dict[str, str], str]] = {
    "ruff's extend-exclude": ({UNIQUE: LINT_FAILS, "pyproject.toml": LOOSER_RUFF}, "lint fails"),
    "ruff's per-file-ignores": ({UNIQUE: LINT_FAILS, "pyproject.toml": PER_FILE}, "lint fails"),
    "a nested ruff.toml that selects nothing": (
        {UNIQUE: LINT_FAILS, "src/tally/ruff.toml": "[lint]\nselect = []\n"},
        "lint fails",
    ),
    "a mypy override with ignore_errors": (
        {UNIQUE: TYPES_FAIL, "pyproject.toml": OVERRIDE},
        "typecheck fails",
    ),
    "a mypy.ini that is not strict": (
        {UNIQUE: TYPES_FAIL, "mypy.ini": "[mypy]\nfiles = src\n"},
        "typecheck fails",
    ),
    "a conftest that patches the code under test": (
        {"conftest.py": PATCHED},
        "with the judges' test configuration, tests/test_unique.py::test_count_unique: failed",
    ),
    "a plugin named in addopts that patches it": (
        {
            "src/tally/_fast.py": PATCHED.replace("import tally.unique\n", "import tally.unique\n"),
            "pyproject.toml": PYPROJECT.replace(
                'testpaths = ["tests"]', 'testpaths = ["tests"]\naddopts = "-p tally._fast"'
            ),
        },
        "with the judges' test configuration, tests/test_unique.py::test_count_unique: failed",
    ),
    "a conftest hook that reports the failure as a pass": (
        {
            "conftest.py": (
                "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\n"
                "def pytest_runtest_makereport(item, call):\n"
                "    outcome = yield\n    report = outcome.get_result()\n"
                "    report.outcome = 'passed'\n    report.longrepr = None\n"
            )
        },
        "with the judges' test configuration, tests/test_unique.py::test_count_unique: failed",
    ),
    "the CI workflow": (
        {UNIQUE: HONEST, ".github/workflows/ci.yml": "on: push\njobs: {}\n"},
        "the forge's checks run the head's own",
    ),
}


@pytest.mark.parametrize("way", sorted(CHEATS))
def test_a_change_to_what_judges_it_is_judged_with_the_judges_own(
    way: str, tmp_path: Path, env: dict[str, str]
) -> None:
    """The head's own checks pass; with the base's configuration they do not, or it is held."""
    files, said = CHEATS[way]
    judged = check(verify_cheat(tmp_path, env, way, files), "judges-config")
    assert judged.outcome is Outcome.FAILED, judged
    assert said in judged.reason, judged.reason


def test_a_sitecustomize_on_the_tests_path_that_patches_the_code_is_judged_without_it(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """With `src` on PYTHONPATH (as the shared setup puts it), Python imports the change's
    `sitecustomize.py` before pytest starts: the head passes; without it, it does not."""
    repo, base, _ = tally_repo(tmp_path / "tally")
    repo.commit({"src/sitecustomize.py": PATCHED}, "cheat: sitecustomize")
    on_path = {**env, "PYTHONPATH": "src"}  # each tree's own src
    result = verify_head(repo, base, on_path, tmp_path / "logs")
    test = result.command("test")
    assert test is not None
    assert test.outcome is Outcome.PASSED
    assert check(result, "spec-tests").outcome is Outcome.PASSED
    assert not result.passed
    judged = check(result, "judges-config")
    assert judged.outcome is Outcome.FAILED
    assert judged.paths == ("src/sitecustomize.py",)
    assert "tests/test_unique.py::test_count_unique: failed" in judged.reason


def test_the_honest_implementation_passes_with_nothing_judged_again(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """No configuration changed: no judged run, no suppression; the spec's test passed."""
    repo, base, _ = tally_repo(tmp_path / "tally")
    repo.commit({UNIQUE: HONEST}, "count_unique")
    result = verify_head(repo, base, env, tmp_path / "logs")
    assert result.passed, result.failures()
    assert check(result, "judges-config").outcome is Outcome.SKIPPED
    assert check(result, "suppressions").outcome is Outcome.SKIPPED
    assert check(result, "spec-tests").outcome is Outcome.PASSED
    assert "## What this change does to the checks" in result.summary()


def test_a_conftest_that_only_adds_a_fixture_for_the_implementers_tests_merges(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """The judges' run leaves it and the implementer's test out: the spec's test passes."""
    repo, base, _ = tally_repo(tmp_path / "tally")
    conftest = (
        "import pytest\n\n\n@pytest.fixture\ndef words() -> list[str]:\n"
        "    return ['x', 'y', 'x']\n"
    )
    own = (
        "from tally.unique import count_unique\n\n\n"
        "def test_repeats(words: list[str]) -> None:\n    assert count_unique(words) == 2\n"
    )
    repo.commit({UNIQUE: HONEST, "tests/conftest.py": conftest, "tests/test_more.py": own}, "x")
    result = verify_head(repo, base, env, tmp_path / "logs")
    assert result.passed, result.failures()
    judged = check(result, "judges-config")
    assert judged.outcome is Outcome.PASSED
    assert "tests/conftest.py" in judged.reason
    assert result.fails_before_fix.outcome is not Outcome.SKIPPED


def test_a_tighter_lint_config_with_clean_code_passes(tmp_path: Path, env: dict[str, str]) -> None:
    """A config change that judges more strictly passes with the base's too."""
    repo, base, _ = tally_repo(tmp_path / "tally")
    stricter = PYPROJECT.replace('select = ["E", "F", "B"]', 'select = ["E", "F", "B", "UP"]')
    repo.commit({UNIQUE: HONEST, "pyproject.toml": stricter}, "count_unique, stricter lint")
    result = verify_head(repo, base, env, tmp_path / "logs")
    assert result.passed, result.failures()
    assert check(result, "judges-config").outcome is Outcome.PASSED


def test_what_a_person_accepted_is_judged_as_the_head_has_it(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """The keys a checks-config stop showed, once accepted, no longer hold the head."""
    repo, base, _ = tally_repo(tmp_path / "tally")
    repo.commit({UNIQUE: LINT_FAILS, "pyproject.toml": PER_FILE}, "count_unique, per-file")
    first = verify_head(repo, base, env, tmp_path / "logs")
    assert first.held
    accepted = Judging(spec=SPEC, accepted=frozenset(first.held))
    again = verify_head(repo, base, env, tmp_path / "logs2", accepted)
    assert again.passed, again.failures()
    assert "accepted by a person" in again.facts


def test_only_a_conftest_changed_still_runs_fails_before_fix(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """Issue 45, 4: a test-infrastructure change is never "no code changed"."""
    repo, base, _ = tally_repo(tmp_path / "tally")
    repo.commit({"tests/conftest.py": "collect_ignore = ['test_unique.py']\n"}, "cheat")
    result = verify_head(repo, base, env, tmp_path / "logs")
    assert not result.passed
    assert result.fails_before_fix.outcome is Outcome.FAILED, result.fails_before_fix
    assert STUB  # the stub stays: the behaviour is missing
