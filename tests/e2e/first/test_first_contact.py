"""A new user's first contact, as issue 48 found it: each mistake said once as its cause, the
loop backing off or stopping non-zero, and no issue left looking busy while nothing runs."""

from __future__ import annotations

import socket

from conveyor.core.claims import live_claims, parse_claims
from conveyor.core.state import Stage
from conveyor.testing.world import ACCOUNT, World


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_a_wrong_repository_is_named_once_by_doctor_tick_and_run(world: World) -> None:
    """404 on the repository: one line naming it, from each command; `--until-idle` exits 1."""
    world.write_config({"repo": "acme/widgetz"})
    said = "repository acme/widgetz not found, or the token cannot see it"
    doctor = world.run("doctor")
    assert doctor.returncode == 1
    failed = [line for line in doctor.stdout.splitlines() if line.startswith("FAIL")]
    assert [line for line in failed if "agent" not in line] == [
        f"FAIL repository: {said}: check `repo` and that {ACCOUNT} can read it"
    ]
    tick = world.run("tick")
    assert tick.returncode == 1
    assert f"poll failed: {said}" in tick.stdout
    run = world.run("run", "--until-idle", timeout=120)
    assert run.returncode == 1
    assert f"poll failed: {said}" in run.stdout
    assert "stopped (--until-idle)" in run.stdout


def test_an_unreachable_embedded_forge_says_how_to_serve_it(world: World) -> None:
    """Nothing listening at the config's URL: the URL, the refusal and the `forge serve` line."""
    port = _closed_port()
    world.write_config({"forge": {"kind": "local", "api_url": f"http://127.0.0.1:{port}"}})
    run = world.run("run", "--until-idle", timeout=180)
    assert run.returncode == 1
    assert f"cannot reach the forge at http://127.0.0.1:{port}" in run.stdout
    assert f"conveyor forge serve --data DIR --port {port}" in run.stdout
    doctor = world.run("doctor", timeout=180)
    assert f"conveyor forge serve --data DIR --port {port}" in doctor.stdout


def test_a_missing_agent_cli_leaves_no_label_or_claim_on_an_issue_nothing_runs(
    world: World,
) -> None:
    """The session cannot start: the issue keeps its stage but not `agent:working`, its claim
    is closed saying why, nothing is stopped, and a plain tick says no "interrupted"."""
    world.write_config(
        {"agents": {"default": {"agent": "claude", "executable": "/nowhere/claude"}}}
    )
    issue = world.open_issue("Add a stock total", "Sum the quantities.")
    tick = world.run("tick")
    assert tick.returncode == 0, tick.stdout + tick.stderr
    assert world.labels(issue.number) == ()
    state = world.state(issue.number)
    assert state is not None
    assert (state.stage, state.stopped) == (Stage.TRIAGE, None)
    comments = world.comments(issue.number)
    claims = parse_claims(comments, ACCOUNT)
    assert claims
    assert not live_claims(claims, claims[-1].updated_at, 3)
    assert any("paused, nothing runs for it now" in c.body for c in comments)
    assert "pause agent-cli-missing" in tick.stdout
    assert "interrupted" not in tick.stdout
    again = world.run("tick")
    assert world.labels(issue.number) == ()
    assert "hold #" in again.stdout
