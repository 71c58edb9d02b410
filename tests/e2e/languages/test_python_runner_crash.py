"""A new test that crashes the test runner itself fails, where the base runs clean (issue 47,
point 3; pytest-7168's shape: a value whose `__repr__` raises makes pytest INTERNALERROR).

The project ships a pytest plugin (loaded by `tests/conftest.py`) that describes each
test's recorded properties with the project's `describe`, which calls `repr` unguarded.
The spec's test records a value whose `__repr__` raises: pytest itself crashes (exit 3),
which is the bug. The spec check and fails-before-fix count that crash as the new test
failing, since the base, without it, runs clean; the checks comment says so.
"""

from __future__ import annotations

from pathlib import Path

from conveyor.emulator.app.server import ForgeServer
from tests.e2e.helpers import session_tasks
from tests.e2e.languages.sessions import drive_merged, spec_text, whole_issue
from tests.e2e.realrepo.project import PYTEST, project_world, write_project

ADD = "def add(a, b):\n    return a + b\n\n\n"
DESCRIBE = ADD + "def describe(value):\n    return repr(value)\n"
GUARDED = ADD + (
    "def describe(value):\n    try:\n        return repr(value)\n"
    "    except Exception as exc:\n"
    "        return f'<{type(value).__name__}: repr raised {exc!r}>'\n"
)
PLUGIN = (
    "from calc import describe\n\nSEEN = []\n\n\n"
    "def pytest_runtest_logreport(report):\n"
    "    for name, value in report.user_properties:\n"
    "        SEEN.append(f'{name}={describe(value)}')\n"
)
FILES = {
    "calc/__init__.py": DESCRIBE,
    "calc/plugin.py": PLUGIN,
    "tests/conftest.py": "from calc.plugin import pytest_runtest_logreport  # noqa: F401\n",
    "tests/test_describe.py": "from calc import describe\n\n\ndef test_a_number():\n"
    "    assert describe(1) == '1'\n",
}
BROKEN_REPR = (
    "class Broken:\n    def __str__(self):\n        return 'broken'\n\n"
    "    def __repr__(self):\n        raise RuntimeError('no repr')\n\n\n"
    "def test_a_value_with_a_broken_repr_is_described(record_property):\n"
    "    record_property('value', Broken())\n"
)
OWN_TEST = FILES["tests/test_describe.py"] + (
    "\n\ndef test_a_string():\n    assert describe('a') == \"'a'\"\n"
)
INTERFACE = {
    "name": "describe",
    "kind": "function",
    "where": "calc/__init__.py",
    "status": "changed",
    "signature": "def describe(value)",
    "behaviours": ["`describe` survives a value whose repr raises."],
}
SPEC = spec_text(
    "`describe` survives a value whose repr raises.",
    "calc/__init__.py",
    "`calc.describe`",
    "`tests/test_broken_repr.py` records such a value.",
)


def test_a_new_test_that_crashes_pytest_counts_as_failing_and_the_issue_merges(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """The spec writer ran once (no finding on the crash), fails-before-fix says it was a crash."""
    src = write_project(tmp_path / "calc", FILES)
    world = project_world(forge_server, tmp_path, commands={"test": PYTEST}, src=src)
    tests = {"tests/test_broken_repr.py": BROKEN_REPR}
    fix = {"calc/__init__.py": GUARDED, "tests/test_describe.py": OWN_TEST}
    world.write_scenario(whole_issue("crash", tests, fix, [INTERFACE], SPEC))
    number = world.open_issue("describe crashes on a broken repr [crash]", "pytest crashes").number

    checks = drive_merged(world, number)

    assert "fails-before-fix: passed (counted as failing" in checks, checks
    assert "crash" in checks, checks
    assert len(session_tasks(world, number, "spec")) == 1
    assert world.base_file("calc/__init__.py") == GUARDED


def test_a_runner_that_crashes_at_the_base_too_stops_as_environment(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """The base's own test crashes pytest: the crash says nothing of the new test, no charge."""
    crashing = {**FILES, "tests/test_describe.py": BROKEN_REPR}
    src = write_project(tmp_path / "calc", crashing)
    world = project_world(forge_server, tmp_path, commands={"test": PYTEST}, src=src)
    tests = {"tests/test_broken_repr.py": BROKEN_REPR}
    world.write_scenario(
        whole_issue("base", tests, {"calc/__init__.py": GUARDED}, [INTERFACE], SPEC)
    )
    number = world.open_issue("describe crashes on a broken repr [base]", "pytest crashes").number

    done = world.drive(number)

    assert done.returncode == 0, done.stdout + done.stderr
    assert world.labels(number) == ("agent:stopped-environment",)
    assert len(session_tasks(world, number, "spec")) == 1
    state = world.state(number)
    assert state is not None
    assert state.rounds.spec_attempts == 0
