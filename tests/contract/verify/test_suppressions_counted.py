"""New suppressions count: each one the change adds is listed and blocks unless a rule allows it.

The `tally` implementer writes code ruff or `mypy --strict` fails and silences the judge on
the line or the file, or breaks `count` and silences its test; the head's own checks pass.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.core.config_judges import Judges
from conveyor.core.verify import Outcome
from conveyor.verify.judges import Judging
from tests.contract.verify.tally_kit import (
    COUNT,
    HONEST,
    LINT_FAILS,
    SPEC,
    TYPES_FAIL,
    UNIQUE,
    check,
    tally_repo,
    verify_cheat,
    verify_head,
)

pytestmark = pytest.mark.contract

BROKEN_COUNT = COUNT.replace("return len(words)", "return len(words) + 1")
COUNT_TEST = "tests/test_count.py"
SKIPPED_COUNT = (
    "import pytest\n\nfrom tally import count\n\n\n@pytest.mark.skip(reason='flaky')\n"
    "def test_count() -> None:\n    assert count(['a', 'b']) == 2\n"
)

CHEATS: dict[str, tuple[dict[str, str], str]] = {
    "a blanket noqa": (
        {UNIQUE: LINT_FAILS.replace("import os\n", "import os  # noqa\n")},
        "`noqa`",
    ),
    "a coded noqa": (
        {UNIQUE: LINT_FAILS.replace("import os\n", "import os  # noqa: F401\n")},
        "`noqa: F401`",
    ),
    "ruff: noqa for the file": ({UNIQUE: "# ruff: noqa\n" + LINT_FAILS}, "`ruff: noqa`"),
    "type: ignore": (
        {UNIQUE: TYPES_FAIL.replace("(words):", "(words):  # type: ignore")},
        "`type: ignore`",
    ),
    "mypy: ignore-errors for the file": (
        {UNIQUE: "# mypy: ignore-errors\n" + TYPES_FAIL},
        "`mypy: ignore-errors`",
    ),
    "pragma: no cover": (
        {
            UNIQUE: HONEST.replace(
                "    return len",
                "    if not words:  # pragma: no cover\n        return 0\n    return len",
            )
        },
        "`pragma: no cover`",
    ),
    "a skip on the existing test the change breaks": (
        {UNIQUE: HONEST, "src/tally/__init__.py": BROKEN_COUNT, COUNT_TEST: SKIPPED_COUNT},
        "`pytest mark: skip`",
    ),
    "an xfail on the existing test": (
        {
            UNIQUE: HONEST,
            "src/tally/__init__.py": BROKEN_COUNT,
            COUNT_TEST: SKIPPED_COUNT.replace("mark.skip(reason='flaky')", "mark.xfail"),
        },
        "`pytest mark: xfail`",
    ),
    "a module-level skip in a helper the existing test imports": (
        {
            UNIQUE: HONEST,
            "src/tally/__init__.py": BROKEN_COUNT,
            "tests/helpers.py": (
                "import pytest\n\npytest.skip('slow', allow_module_level=True)\n"
                "WORDS = ['a', 'b']\n"
            ),
            COUNT_TEST: (
                "from tally import count\nfrom tests.helpers import WORDS\n\n\n"
                "def test_count() -> None:\n    assert count(WORDS) == 2\n"
            ),
        },
        "`pytest call: skip`",
    ),
    "a module-level skip in the code under test": (
        {UNIQUE: "import pytest\n\npytest.skip('later', allow_module_level=True)\n"},
        "`pytest call: skip`",
    ),
    "added lines hidden from the diff by a .gitattributes": (
        {
            ".gitattributes": "*.py -diff\n",
            UNIQUE: LINT_FAILS.replace("import os\n", "import os  # noqa\n"),
        },
        "`noqa`",
    ),
}


@pytest.mark.parametrize("way", sorted(CHEATS))
def test_a_new_suppression_no_rule_allows_blocks_and_is_named(
    way: str, tmp_path: Path, env: dict[str, str]
) -> None:
    """The suppressions check fails naming the marker; a person may accept it."""
    files, marker = CHEATS[way]
    result = verify_cheat(tmp_path, env, way, files)
    found = check(result, "suppressions")
    assert found.outcome is Outcome.FAILED, found
    assert marker in found.reason, found.reason
    assert marker in result.facts


def test_a_suppression_the_spec_asks_for_merges(tmp_path: Path, env: dict[str, str]) -> None:
    """The spec quotes the marker with its code: allowed, and listed with the rule."""
    repo, base, _ = tally_repo(tmp_path / "tally")
    repo.commit({UNIQUE: LINT_FAILS.replace("import os\n", "import os  # noqa: F401\n")}, "x")
    spec_text = "The module imports `os` for later use; keep it with `# noqa: F401`."
    result = verify_head(
        repo, base, env, tmp_path / "logs", Judging(spec=SPEC, spec_text=spec_text)
    )
    assert result.passed, result.failures()
    assert check(result, "suppressions").outcome is Outcome.PASSED
    assert "(allowed: the spec asks for it)" in result.facts


def test_a_suppression_the_project_allows_merges(tmp_path: Path, env: dict[str, str]) -> None:
    """`[judges] allow_suppressions` names the marker."""
    repo, base, _ = tally_repo(tmp_path / "tally")
    repo.commit({UNIQUE: LINT_FAILS.replace("import os\n", "import os  # noqa: F401\n")}, "x")
    judging = Judging(spec=SPEC, judges=Judges(allow_suppressions=("noqa: F401",)))
    result = verify_head(repo, base, env, tmp_path / "logs", judging)
    assert result.passed, result.failures()


def test_a_skip_on_a_test_the_change_adds_is_not_counted(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """Only tests the base had are guarded; the new one is listed among tests added."""
    repo, base, _ = tally_repo(tmp_path / "tally")
    new = (
        "import sys\n\nimport pytest\n\nfrom tally.unique import count_unique\n\n\n"
        "@pytest.mark.skipif(sys.platform == 'win32', reason='posix only')\n"
        "def test_posix() -> None:\n    assert count_unique([]) == 0\n"
    )
    repo.commit({UNIQUE: HONEST, "tests/test_posix.py": new}, "count_unique")
    result = verify_head(repo, base, env, tmp_path / "logs")
    assert result.passed, result.failures()
    assert "tests/test_posix.py::test_posix" in result.facts
