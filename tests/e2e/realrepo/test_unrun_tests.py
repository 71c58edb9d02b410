"""Issue 31, point 5: fails-before-fix skipped with a note when the command cannot run the tests.

The test command is a script naming its files (`tests/test_add.py`); the spec has
no tests (`no_tests_reason`) and the implementer adds `tests/test_mul.py`, which that
script never runs. With `commands.test_files` unset, fails-before-fix cannot run the
new test: it is skipped, and the checks comment on the forge says so and what to set.
With `commands.test_files`, the new test runs there and fails before the fix.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conveyor.emulator.app.server import ForgeServer
from tests.e2e.back.merge_helpers import clean_back_half
from tests.e2e.helpers import assert_invariants, reply, triage
from tests.e2e.realrepo.project import (
    FIXED,
    MUL_TEST,
    PYTEST,
    no_tests_spec_entry,
    open_mul_issue,
    project_world,
    write_project,
)

SCRIPT = f"#!/bin/sh\nexec {PYTEST} tests/test_add.py\n"
SKIPPED = (
    "fails-before-fix: skipped (the test command's report has none of the changed tests: "
    "set `commands.test_files` to a command that runs given test files"
)


def _sessions(tag: str) -> list[dict[str, Any]]:
    """A spec with no tests, an implementer fixing `mul` and adding its test, a clean back half."""
    files = [
        {"write": {"path": "calc/__init__.py", "content": FIXED}},
        {"write": {"path": "tests/test_mul.py", "content": MUL_TEST}},
        {"commit": "mul multiplies, with its test"},
    ]
    done: dict[str, Any] = {"status": "done", "summary": "mul multiplies."}
    done |= {"blocked_reason": None, "deviations": []}
    implement = {"tag": tag, "kind": "implement", "turns": [{"actions": files}, reply(done)]}
    back = clean_back_half(tag)
    for entry in back:
        if entry["kind"] == "accept":
            entry["turns"][0]["actions"][0]["reply"]["no_tests_reason_holds"] = True
    return [triage(tag), no_tests_spec_entry(tag), implement, *back]


def _checks(forge_server: ForgeServer, tmp_path: Path, tag: str, **commands: str) -> str:
    """Drive the issue with test command `sh run-tests.sh` to a merge; its last checks comment."""
    src = write_project(tmp_path / "calc", {"run-tests.sh": SCRIPT})
    world = project_world(
        forge_server, tmp_path, commands={"test": "sh run-tests.sh", **commands}, src=src
    )
    world.write_scenario(_sessions(tag))
    number = open_mul_issue(world, tag)

    done = world.drive(number)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "agent:merged" in world.labels(number), world.labels(number)
    assert world.base_file("calc/__init__.py") == FIXED
    assert_invariants(world, number)
    checks = [c.body for c in world.comments(number) if "### Checks" in c.body]
    assert checks, "no checks comment"
    return checks[-1]


def test_fails_before_fix_is_skipped_with_a_note_when_the_command_never_runs_the_new_test(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """No stop: the checks comment names the skip and `commands.test_files`."""
    checks = _checks(forge_server, tmp_path, "unrun")

    assert SKIPPED in checks, checks


def test_with_test_files_set_fails_before_fix_runs_the_new_test_and_sees_it_fail(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """`commands.test_files` runs the changed test files themselves, before the fix."""
    checks = _checks(forge_server, tmp_path, "given", test_files=f"{PYTEST} {{tests}}")

    assert "fails-before-fix: passed (failing: tests/test_mul.py::test_mul_multiplies)" in checks
