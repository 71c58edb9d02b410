"""Issue 32: fails-before-fix runs once, in the spec check, for the spec writer's own tests.

The spec check saw `tests/test_mul.py` fail at the spec's head (no fix yet) and pass with
it put back (SPEC-83, SPEC-84). When the PR's tests are still exactly those, verify skips
its fails-before-fix run and the checks comment says why (CHK-17). A test the implementer
writes is run before the fix as always, and one that passes without it stops the issue.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conveyor.emulator.app.server import ForgeServer
from tests.e2e.back.merge_helpers import clean_back_half
from tests.e2e.helpers import assert_invariants, reply, triage
from tests.e2e.realrepo.project import (
    ADD_TEST,
    FIXED,
    no_tests_spec_entry,
    open_mul_issue,
    project_world,
    whole_issue,
)

SKIPPED = (
    "fails-before-fix: skipped (the changed tests are the spec writer's, unchanged: "
    "its commit check saw them fail before the fix at "
)
# A test the implementer adds that the base passes too: it shows nothing of the fix.
ADD_ZERO = ADD_TEST + "\n\ndef test_add_zero():\n    assert add(0, 0) == 0\n"


def _checks_comments(world: Any, number: int) -> list[str]:
    return [c.body for c in world.comments(number) if "### Checks" in c.body]


def test_the_spec_writers_unchanged_tests_are_not_run_again_before_the_fix(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """The issue merges; the checks comment names the skip; the tests ran once, at the spec's
    head, and no fails-before-fix run is logged."""
    world = project_world(forge_server, tmp_path, commands={})
    world.write_scenario(whole_issue("once"))
    number = open_mul_issue(world, "once")

    done = world.drive(number)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "agent:merged" in world.labels(number), world.labels(number)
    checks = _checks_comments(world, number)
    assert checks, "no checks comment"
    assert SKIPPED in checks[-1], checks[-1]
    assert list(world.kept_files("spec-test.log"))
    # The spec wrote a test file only: with it put back the tree is the start's, not run.
    assert not list(world.kept_files("spec-tests-reverted*.log"))
    assert not list(world.kept_files("fails-before-fix*.log"))
    assert_invariants(world, number)


def _implementer(tag: str, test: str) -> dict[str, Any]:
    files = [
        {"write": {"path": "calc/__init__.py", "content": FIXED}},
        {"write": {"path": "tests/test_add.py", "content": test}},
        {"commit": "mul multiplies, with a test"},
    ]
    done: dict[str, Any] = {"status": "done", "summary": "mul multiplies."}
    done |= {"blocked_reason": None, "deviations": []}
    return {"tag": tag, "kind": "implement", "turns": [{"actions": files}, reply(done)]}


def _cannot_fix(tag: str) -> dict[str, Any]:
    answer = {"status": "cannot-fix", "cause": "the test passes at the base", "summary": "no"}
    return {"tag": tag, "kind": "check_fix", "turns": [reply(answer)]}


def test_an_implementers_test_that_passes_without_the_fix_still_stops_the_issue(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """No spec tests (`no_tests_reason`): the implementer's test is run before the fix and,
    passing there, fails the checks: the issue stops at check fixes, naming the check."""
    tag = "ownpass"
    world = project_world(forge_server, tmp_path, commands={})
    back = clean_back_half(tag)
    for entry in back:
        if entry["kind"] == "accept":
            entry["turns"][0]["actions"][0]["reply"]["no_tests_reason_holds"] = True
    sessions = [
        triage(tag),
        no_tests_spec_entry(tag),
        _implementer(tag, ADD_ZERO),
        _cannot_fix(tag),
    ]
    world.write_scenario([*sessions, *back])
    number = open_mul_issue(world, tag)

    world.drive(number)

    assert world.labels(number) == ("agent:stopped-check-fixes",), world.labels(number)
    stop = world.comments(number)[-1].body
    assert "fails-before-fix: failed: the tests pass with the non-test changes reverted" in stop
    assert list(world.kept_files("fails-before-fix-test.log"))
