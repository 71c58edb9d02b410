"""Issue 31, point 4: a CI check that fails at the base stops the issue, with no paid fix round."""

from __future__ import annotations

from pathlib import Path

from conveyor.emulator.app.server import ForgeServer
from tests.e2e.helpers import assert_invariants
from tests.e2e.realrepo.project import (
    NETWORK_TEST,
    PYTEST,
    open_mul_issue,
    project_world,
    whole_issue,
    write_project,
)

UNRELATED = "agent:stopped-checks-unrelated"


def _stop_comments(bodies: list[str]) -> list[str]:
    """The comments that say the issue stopped on checks-unrelated."""
    return [body for body in bodies if "checks-unrelated" in body]


def test_ci_failing_on_the_base_head_too_stops_checks_unrelated_showing_the_base_run(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """The fix's CI fails as the base's does: the stop names the check and its run on the base."""
    src = write_project(tmp_path / "calc", {"tests/test_network.py": NETWORK_TEST})
    world = project_world(forge_server, tmp_path, commands={}, src=src, ci=PYTEST, ci_base=True)
    world.write_scenario(whole_issue("redbase"))
    number = open_mul_issue(world, "redbase")

    done = world.drive(number)

    assert done.returncode == 0, done.stdout + done.stderr
    assert UNRELATED in world.labels(number), world.labels(number)
    stops = _stop_comments([c.body for c in world.comments(number)])
    assert stops, "no checks-unrelated comment"
    assert "`ci` is failure on the base's head" in stops[-1]
    assert "test_fetches_the_index" in stops[-1]
    assert_invariants(world, number)


def test_ci_failing_only_in_tests_failing_at_the_base_stops_checks_unrelated_naming_them(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """The base's head never ran CI: the check's failing tests are read against verify's base."""
    src = write_project(tmp_path / "calc", {"tests/test_network.py": NETWORK_TEST})
    world = project_world(forge_server, tmp_path, commands={}, src=src, ci=PYTEST)
    world.write_scenario(whole_issue("oldci"))
    number = open_mul_issue(world, "oldci")

    done = world.drive(number)

    assert done.returncode == 0, done.stdout + done.stderr
    assert UNRELATED in world.labels(number), world.labels(number)
    stops = _stop_comments([c.body for c in world.comments(number)])
    assert stops, "no checks-unrelated comment"
    assert "fail at the base too" in stops[-1]
    assert "tests/test_network.py::test_fetches_the_index" in stops[-1]
    assert_invariants(world, number)
