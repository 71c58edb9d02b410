"""A test command naming test files runs without those missing in the tree (issue 13)."""

from __future__ import annotations

from pathlib import Path

from conveyor.core.config import Commands, Paths
from conveyor.verify.context import Context
from conveyor.verify.test_paths import fit_command

GLOBS = Paths().tests


def _tree(tmp_path: Path, *files: str) -> Path:
    for name in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    return tmp_path


def test_named_test_files_missing_in_the_tree_are_left_out(tmp_path: Path) -> None:
    """The new test file the spec adds does not exist at the base: it is dropped there."""
    tree = _tree(tmp_path, "tests/test_a.py")
    command = "python -m pytest -q tests/test_a.py tests/test_new.py::test_x -k 'a or b'"
    assert fit_command(command, tree, GLOBS) == "python -m pytest -q tests/test_a.py -k 'a or b'"


def test_a_command_whose_files_all_exist_is_left_exactly_as_written(tmp_path: Path) -> None:
    """Nothing missing, nothing changed, spacing included."""
    tree = _tree(tmp_path, "tests/test_a.py")
    command = "cd . &&  python -m pytest tests/test_a.py   -x"
    assert fit_command(command, tree, GLOBS) == command


def test_a_command_naming_only_missing_files_has_nothing_to_run(tmp_path: Path) -> None:
    """None: no test the command names exists here."""
    assert fit_command("pytest tests/test_new.py", _tree(tmp_path), GLOBS) is None


def test_words_that_are_not_test_paths_are_never_dropped(tmp_path: Path) -> None:
    """Options, interpreters and folders are kept even when no such file exists."""
    command = "bin/run-tests --junit out.xml tests -p no:cacheprovider"
    assert fit_command(command, _tree(tmp_path), GLOBS) == command


def test_mochas_require_value_is_kept_though_no_file_has_that_exact_name(tmp_path: Path) -> None:
    """Issue 47: `test/support/env` names `test/support/env.js`; it is --require's value, kept."""
    tree = _tree(tmp_path, "test/support/env.js", "test/app.render.js")
    command = "mocha --require test/support/env --check-leaks test/app.render.js test/new.js"
    fitted = "mocha --require test/support/env --check-leaks test/app.render.js"
    assert fit_command(command, tree, (*GLOBS, "test/**")) == fitted
    assert fit_command(fitted, tree, GLOBS) == fitted


def test_a_test_run_sees_ci_and_every_runners_report_variable(tmp_path: Path) -> None:
    """CI=true (jest's --ci: no snapshot written; no watch mode), and the JUnit report's path
    for jest-junit and mocha-junit-reporter, without editing the command."""
    tree = _tree(tmp_path / "tree", "README.md")
    command = 'printf \'%s %s %s\' "$CI" "$JEST_JUNIT_OUTPUT_FILE" "$MOCHA_FILE" > seen.txt'
    ctx = Context(tree, Commands(test=command), {"PATH": "/usr/bin:/bin"}, tmp_path / "logs")
    assert ctx.test("test", tree, None).ok
    ci, jest, mocha = (tree / "seen.txt").read_text().split(" ")
    assert ci == "true"
    assert jest == mocha
    assert jest.endswith("test.junit.xml")
