"""A machine where no box can be built: the orchestrator refuses to start, saying why and how to
choose `mode = "none"`; with `none` it runs and says, in doctor and status, it is unconfined.

The machine is made such by running Conveyor in a user namespace whose own
`user.max_user_namespaces` is 0: bubblewrap itself then fails to build a box, as it
does on a host whose kernel forbids unprivileged user namespaces.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conveyor.testing.world import World

CONVEYOR = str(Path(sys.executable).with_name("conveyor"))
NO_USERNS = 'echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"'


def _without_userns(world: World, *args: str) -> subprocess.CompletedProcess[str]:
    """`conveyor ARGS --config <world's>` on a machine where no user namespace can be made."""
    argv = ["unshare", "--user", "--map-root-user", "sh", "-c", NO_USERNS, "sh", CONVEYOR]
    return subprocess.run(
        [*argv, *args, "--config", str(world.config_path)],
        env=world.env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("command", [("tick",), ("run", "--until-idle"), ("drive", "--issue")])
def test_without_a_box_the_orchestrator_refuses_to_start_and_touches_nothing(
    world: World, command: tuple[str, ...]
) -> None:
    """One line says why and how to opt out; exit 2; the waiting issue is not picked up."""
    issue = world.open_issue("Add a stock total [rf]", "Sum the quantities.")
    args = (*command, str(issue.number)) if command[-1] == "--issue" else command
    done = _without_userns(world, *args)
    assert done.returncode == 2, done.stdout + done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "refusing to start" in line
    assert "namespace" in line  # bwrap's own reason
    assert 'mode = "none"' in line
    assert world.labels(issue.number) == ()
    assert world.state(issue.number) is None


def test_the_demo_refuses_to_start_without_a_box_and_names_its_flag(tmp_path: Path) -> None:
    """`conveyor demo` says why in one line and how to run it unconfined (`--sandbox none`)."""
    argv = ["unshare", "--user", "--map-root-user", "sh", "-c", NO_USERNS, "sh", CONVEYOR]
    done = subprocess.run(
        [*argv, "demo", "--no-serve", "--data", str(tmp_path / "data")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "refusing to start" in line
    assert "--sandbox none" in line
    assert not (tmp_path / "data" / "conveyor").exists()


def test_doctor_says_why_no_box_can_be_built_and_how_to_fix_it(world: World) -> None:
    """The sandbox check fails, naming the sysctl and the command that sets it."""
    done = _without_userns(world, "doctor", "--json")

    checks = {c["name"]: c for c in json.loads(done.stdout)["checks"]}
    sandbox = checks["sandbox"]
    assert sandbox["ok"] is False
    assert "user.max_user_namespaces is 0" in sandbox["detail"]
    assert "sysctl -w user.max_user_namespaces=" in sandbox["detail"]


def test_with_mode_none_it_starts_and_says_it_is_unconfined(world: World) -> None:
    """`mode = "none"`: tick runs where no box can be built; doctor and status say unconfined."""
    world.write_config({"sandbox": {"mode": "none"}})
    ticked = _without_userns(world, "tick")
    assert ticked.returncode == 0, ticked.stdout + ticked.stderr
    status = world.run("status")
    assert "unconfined" in status.stdout

    doctor = world.run("doctor", "--json")
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks["sandbox"]["ok"] is True
    assert "unconfined" in checks["sandbox"]["detail"]
    assert json.loads(world.run("status", "--json").stdout)["sandbox"]["confined"] is False
