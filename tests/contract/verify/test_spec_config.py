"""A spec that itself changes test configuration: its version is the judges' own.

The spec writer registers a pytest marker in `pyproject.toml` (and marks its test with it);
its commit check allows the change (every difference is check configuration), pins the
file, and verify of the honest implementation judges nothing again. The implementer
changing the same section afterwards is judged against the spec's version, not the base's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.core.config import Paths
from conveyor.core.config_judges import Judges
from conveyor.core.replies import Interface
from conveyor.core.verify import Outcome
from conveyor.ops.local.spec_check import check_spec_commits
from conveyor.verify.context import Context
from conveyor.verify.judges import Judging
from tests.contract.verify.repo_kit import GitRepo
from tests.contract.verify.tally_kit import (
    BASE,
    COMMANDS,
    HONEST,
    PYPROJECT,
    SPEC_TEST,
    STUB,
    UNIQUE,
    check,
    verify_head,
)

pytestmark = pytest.mark.contract

MARKED = PYPROJECT.replace(
    'testpaths = ["tests"]', 'testpaths = ["tests"]\nmarkers = ["unique: counts distinct words"]'
)
MARKED_TEST = SPEC_TEST.replace("from tally.unique", "import pytest\n\nfrom tally.unique").replace(
    "def test_count_unique", "@pytest.mark.unique\ndef test_count_unique"
)
INTERFACE = Interface(
    name="count_unique",
    kind="function",
    where=UNIQUE,
    status="new",
    signature="def count_unique(words: list[str]) -> int",
    behaviours=["counts distinct words"],
)


def test_the_spec_writers_test_config_is_the_judges_and_the_honest_fix_merges(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """The spec check passes and pins pyproject.toml; verify judges nothing again."""
    repo = GitRepo.init(tmp_path / "tally")
    base = repo.commit(BASE, "tally")
    files = {UNIQUE: STUB, "tests/test_unique.py": MARKED_TEST, "pyproject.toml": MARKED}
    repo.commit(files, "spec: count_unique, with its marker")
    ctx = Context(repo.path, COMMANDS, env, tmp_path / "spec-logs", tmp_path)
    checked = check_spec_commits(
        ctx, Paths(), start=base, interfaces=(INTERFACE,), no_tests_reason=None, judges=Judges()
    )
    assert checked.ok, checked.findings
    spec = checked.spec_tests
    assert spec is not None
    assert [path for path, _ in spec.config] == ["pyproject.toml"]
    assert spec.ids == ("tests/test_unique.py::test_count_unique",)

    repo.commit({UNIQUE: HONEST}, "count_unique")
    result = verify_head(repo, base, env, tmp_path / "logs", Judging(spec=spec))
    assert result.passed, result.failures()
    assert check(result, "judges-config").outcome is Outcome.SKIPPED

    deselect = MARKED.replace(
        'testpaths = ["tests"]', 'testpaths = ["tests"]\naddopts = "-m \'not unique\'"'
    )
    repo.commit({UNIQUE: STUB, "pyproject.toml": deselect}, "cheat: deselect the marker")
    cheat = verify_head(repo, base, env, tmp_path / "logs2", Judging(spec=spec))
    assert not cheat.passed
    assert check(cheat, "judges-config").outcome is Outcome.FAILED
    assert "tests/test_unique.py::test_count_unique" in check(cheat, "spec-tests").reason
