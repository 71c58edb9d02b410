"""A test command fitted to a tree: only a known runner's positional test paths are left out
(issue 47, point 2: `mocha --require test/support/env` lost its value)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conveyor.core.command_fit import fit
from conveyor.core.config import Paths
from conveyor.core.runners import runner_named

GLOBS = (*Paths().tests, "**/*.test.js", "**/*.spec.ts")
HERE = frozenset({"test/app.render.js", "tests/test_a.py", "test/a.test.js", "test/support/env.js"})


def exists(path: str) -> bool:
    """The tree: the files in `HERE`, and the folders holding them."""
    return path in HERE or any(f.startswith(f"{path.rstrip('/')}/") for f in HERE)


FITTED = {
    "mocha keeps --require's value and drops the missing spec": (
        "mocha --require test/support/env --check-leaks test/app.render.js test/new.js",
        "mocha --require test/support/env --check-leaks test/app.render.js",
    ),
    "mocha's short -r keeps its value": (
        "npx mocha -r test/support/env test/app.render.js test/new.js",
        "npx mocha -r test/support/env test/app.render.js",
    ),
    "mocha's --require=value is one word": (
        "mocha --require=test/support/env test/new.js test/app.render.js",
        "mocha --require=test/support/env test/app.render.js",
    ),
    "pytest's -k value, quoted, and a node id": (
        "python -m pytest -q tests/test_a.py tests/test_new.py::test_x -k 'a or b'",
        "python -m pytest -q tests/test_a.py -k 'a or b'",
    ),
    "pytest's --ignore keeps its missing folder": (
        "pytest --ignore tests/legacy tests/test_a.py tests/test_new.py",
        "pytest --ignore tests/legacy tests/test_a.py",
    ),
    "pytest's -p value before the files": (
        ".venv/bin/python -X dev -m pytest -p no:cacheprovider tests/test_new.py tests/test_a.py",
        ".venv/bin/python -X dev -m pytest -p no:cacheprovider tests/test_a.py",
    ),
    "an assignment and a launcher before the runner": (
        "CI=1 timeout 600 uv run pytest tests/test_a.py tests/test_new.py -x",
        "CI=1 timeout 600 uv run pytest tests/test_a.py -x",
    ),
    "jest's --config value kept, a missing test file dropped": (
        "node node_modules/.bin/jest --config jest.config.js test/new.test.js test/a.test.js",
        "node node_modules/.bin/jest --config jest.config.js test/a.test.js",
    ),
    "vitest's run subcommand is not a path": (
        "vitest run test/a.test.js test/new.test.js",
        "vitest run test/a.test.js",
    ),
    "only the runner's segment is read": (
        "cmake -S . -B test/build && pytest tests/test_a.py tests/test_new.py",
        "cmake -S . -B test/build && pytest tests/test_a.py",
    ),
}

KEPT = {
    "an option the grammar does not know: the next word may be its value": (
        "pytest --my-plugin-dir tests/test_new.py tests/test_a.py"
    ),
    "jest's array option's values run on": "jest --roots test test/new.test.js",
    "npm test reads package.json: no rewrite": "npm test -- test/new.js",
    "a runner Conveyor does not know": "sh run-tests.sh tests/test_new.py",
    "make's variables": "make test TESTS=tests/test_new.py",
    "go's packages": "go test ./pkg/new/...",
    "cargo's filter": "cargo test tests/new",
    "after a cd the paths are another folder's": "cd sub && pytest tests/test_new.py tests/a.py",
    "a quoted glob the runner expands": "mocha 'test/**/*.new.js' test/app.render.js",
    "a variable": "pytest $TESTS tests/test_a.py",
    "a redirection's target": "pytest tests/test_a.py > tests/out.py",
    "options, interpreters and folders": "bin/run-tests --junit out.xml tests -p no:cacheprovider",
}


@pytest.mark.parametrize(("command", "fitted"), FITTED.values(), ids=FITTED.keys())
def test_a_known_runners_missing_positional_test_files_are_left_out(
    command: str, fitted: str
) -> None:
    """Only the missing file goes; every other word stays as written."""
    assert fit(command, exists, GLOBS) == fitted


@pytest.mark.parametrize("command", KEPT.values(), ids=KEPT.keys())
def test_a_word_whose_role_is_not_sure_is_never_left_out(command: str) -> None:
    """An option's value, or an unknown runner's words, stay: the command runs as written."""
    assert fit(command, exists, GLOBS) == command


def test_a_command_naming_only_missing_files_has_nothing_to_run() -> None:
    """None: no test file the command names exists here."""
    assert fit("mocha -r test/support/env test/new.js", exists, GLOBS) is None
    assert fit("pytest tests/test_new.py", exists, GLOBS) is None


MOCHA = runner_named("mocha")
assert MOCHA is not None
assert MOCHA.grammar is not None
VALUED = sorted(MOCHA.grammar.valued)
PATHS = st.lists(st.sampled_from(["test", "support", "new", "env", "lib"]), min_size=1, max_size=4)


@given(
    option=st.sampled_from(VALUED),
    value=PATHS.map("/".join),
    before=st.booleans(),
)
def test_an_option_value_is_never_dropped_whatever_it_names(
    option: str, value: str, before: bool
) -> None:
    """Every mocha option that takes a value keeps it, missing test path or not."""
    words = [option, value, "test/app.render.js", "test/new.js"]
    command = "mocha " + " ".join(words if before else ["test/app.render.js", *words[:2]])
    fitted = fit(command, exists, GLOBS)
    assert fitted is not None
    assert f"{option} {value}" in fitted
