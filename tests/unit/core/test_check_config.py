"""What configures a check: the table, the commands' files, sections and how they are put back."""

from __future__ import annotations

from conveyor.core.check_config import (
    CONFIG_FILES,
    Judge,
    command_entries,
    default_entries,
    judge_entries,
    matching,
)
from conveyor.core.config_changes import UNSPLICEABLE, config_change, only_config
from conveyor.core.config_judges import Judges
from conveyor.core.config_sections import splice, value

ENTRIES = default_entries()
PYPROJECT = (
    '[project]\nname = "tally"\ndependencies = []\n\n'
    '[tool.pytest.ini_options]\naddopts = "-q"\n\n[tool.ruff]\nline-length = 100\n\n'
    "[tool.mypy]\nstrict = true\n"
)


def _judges(path: str) -> set[Judge]:
    return {e.judge for e in matching(path, ENTRIES)}


def test_every_ecosystem_names_its_configuration_files_by_judge() -> None:
    """Python, JavaScript, TypeScript, Go, Rust, Java and C, and CI for every repository."""
    assert {"python", "javascript", "typescript", "go", "rust", "java", "c", "any"} <= set(
        CONFIG_FILES
    )
    assert _judges("tests/unit/conftest.py") == {Judge.TESTS}
    assert _judges("conftest.py") == {Judge.TESTS}
    assert _judges("sub/pytest.ini") == {Judge.TESTS}
    assert _judges("sitecustomize.py") == {Judge.TESTS}
    assert _judges("src/pkg/ruff.toml") == {Judge.LINT}
    assert _judges("mypy.ini") == {Judge.TYPECHECK}
    assert _judges("web/tsconfig.build.json") == {Judge.TYPECHECK}
    assert _judges("web/.eslintrc.cjs") == {Judge.LINT}
    assert _judges("web/jest.config.ts") == {Judge.TESTS}
    assert _judges(".golangci.yml") == {Judge.LINT}
    assert _judges("clippy.toml") == {Judge.LINT}
    assert _judges(".github/workflows/ci.yml") == {Judge.CI}
    assert _judges(".pre-commit-config.yaml") == {Judge.CI}
    assert _judges("src/tally/core.py") == set()


def test_the_commands_add_the_files_they_run() -> None:
    """make, tox, npm scripts, pre-commit and a script the command names."""
    found = command_entries(
        {
            Judge.TESTS: "make test && ./scripts/run-tests.sh",
            Judge.LINT: "npm run lint",
            Judge.TYPECHECK: "pre-commit run mypy --all-files",
        }
    )
    texts = {(e.text, e.judge) for e in found}
    assert ("Makefile", Judge.TESTS) in texts
    assert ("scripts/run-tests.sh", Judge.TESTS) in texts
    assert ("package.json#scripts", Judge.LINT) in texts
    assert (".pre-commit-config.yaml", Judge.TYPECHECK) in texts


def test_the_config_adds_entries_and_drops_defaults() -> None:
    """`[judges]` entries count; an ignored default does not."""
    judges = Judges(tests=("ci/pytest-extra.cfg",), ignore=("**/noxfile.py",))
    found = judge_entries(judges, {})
    assert matching("ci/pytest-extra.cfg", found)
    assert not matching("noxfile.py", found)


def test_a_changed_section_counts_and_a_changed_dependency_does_not() -> None:
    """pyproject.toml's pytest section is test configuration; its dependencies are not."""
    deselect = PYPROJECT.replace('"-q"', '"-q --deselect tests/test_tally.py::test_count"')
    change = config_change("pyproject.toml", ENTRIES, PYPROJECT, deselect)
    assert change is not None
    assert change.sections == ("tool.pytest",)
    assert change.judges == (Judge.TESTS,)
    assert "--deselect" in change.diff()
    assert change.put_back() == splice(deselect, PYPROJECT, "toml", ["tool.pytest"])
    dependency = PYPROJECT.replace("[]", '["attrs"]')
    assert config_change("pyproject.toml", ENTRIES, PYPROJECT, dependency) is None


def test_a_section_is_put_back_and_everything_else_kept() -> None:
    """The head's dependency stays; the loosened ruff config goes back to the base's."""
    head = PYPROJECT.replace("[]", '["attrs"]').replace(
        "line-length = 100\n", 'line-length = 100\nextend-exclude = ["src"]\n'
    )
    spliced = splice(head, PYPROJECT, "toml", ["tool.ruff"])
    assert spliced is not None
    assert value(spliced, "toml", "tool.ruff") == {"line-length": 100}
    assert value(spliced, "toml", "project") == {"name": "tally", "dependencies": ["attrs"]}


def test_a_section_hidden_in_dotted_keys_cannot_be_put_back_alone() -> None:
    """`[tool]` with `ruff.extend-exclude = …` escapes the headers: held for a person."""
    head = PYPROJECT + '\n[tool]\nruff.extend-exclude = ["src"]\n'
    head = head.replace("[tool.ruff]\nline-length = 100\n", "")
    change = config_change("pyproject.toml", ENTRIES, PYPROJECT, head)
    assert change is not None
    assert change.put_back() == UNSPLICEABLE


def test_ini_and_json_sections_are_judged_too() -> None:
    """setup.cfg's mypy sections and package.json's scripts."""
    cfg = "[metadata]\nname = x\n\n[mypy]\nstrict = True\n"
    loose = cfg + "\n[mypy-tally.*]\nignore_errors = True\n"
    change = config_change("setup.cfg", ENTRIES, cfg, loose)
    assert change is not None
    assert change.sections == ("mypy-*",)
    assert change.put_back() == cfg + "\n"
    scripts = command_entries({Judge.TESTS: "npm test"})
    before = '{"name": "a", "scripts": {"test": "jest"}}'
    after = '{"name": "a", "scripts": {"test": "jest --testPathIgnorePatterns tally"}}'
    change = config_change("package.json", scripts, before, after)
    assert change is not None
    assert '"test": "jest"' in (change.put_back() or "")


def test_only_config_tells_a_spec_that_changes_test_config_from_one_that_changes_more() -> None:
    """A pytest marker added: only configuration; a dependency beside it: more than that."""
    marker = PYPROJECT.replace('"-q"', '"-q"\nmarkers = ["slow"]')
    assert only_config("pyproject.toml", ENTRIES, PYPROJECT, marker)
    assert not only_config("pyproject.toml", ENTRIES, PYPROJECT, marker.replace("[]", '["a"]'))
    assert only_config("tests/conftest.py", ENTRIES, None, "import pytest\n")
    assert not only_config(".github/workflows/ci.yml", ENTRIES, "a", "b")
