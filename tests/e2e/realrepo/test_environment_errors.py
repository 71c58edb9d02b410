"""Issue 13, point 2: an environment error stops the issue as such, never charged to the agent."""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.emulator.app.server import ForgeServer
from tests.e2e.helpers import assert_invariants, session_tasks
from tests.e2e.realrepo.project import PY, PYTEST, open_mul_issue, project_world, whole_issue

BROKEN = {
    "setup": {"setup": f"{PY} -c \"print('no C compiler here'); raise SystemExit(1)\""},
    "usage": {"test": f"{PYTEST} --no-such-option"},
    "interpreter": {"test": "python9.99 -m pytest"},
}
SAYS = {"setup": "no C compiler here", "usage": "--no-such-option", "interpreter": "python9.99"}


@pytest.mark.parametrize("broken", sorted(BROKEN))
def test_an_environment_error_in_the_spec_check_stops_the_issue_as_environment(
    forge_server: ForgeServer, tmp_path: Path, broken: str
) -> None:
    """A failing setup, a usage error (exit 4) or a missing interpreter is not the tests failing.

    The issue stops with `agent:stopped-environment`, the stop comment names the
    command and its output, and the spec writer ran once: no paid retry, no attempt
    counted against it.
    """
    world = project_world(forge_server, tmp_path, commands=BROKEN[broken])
    world.write_scenario(whole_issue("env"))
    number = open_mul_issue(world, "env")

    done = world.drive(number)

    assert done.returncode == 0, done.stdout + done.stderr
    assert world.labels(number) == ("agent:stopped-environment",)
    stop = [c.body for c in world.comments(number) if "environment" in c.body.lower()]
    assert any(SAYS[broken] in body for body in stop), stop
    assert len(session_tasks(world, number, "spec")) == 1
    state = world.state(number)
    assert state is not None
    assert state.rounds.spec_attempts == 0
    assert_invariants(world, number)
