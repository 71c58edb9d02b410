"""`--print-boundary` draws the box a stage's sessions start in, and the hosts they reach."""

from __future__ import annotations

import json

from conveyor.testing.world import World


def test_the_boundary_draws_the_sessions_box_and_its_allowlist(world: World) -> None:
    """Conveyor's home and the config folder hidden, the checkout writable, the network
    the proxy's, which lets through the model API's host and the configured ones only."""
    world.write_config(
        {
            "agents": {"default": {"agent": "claude", "base_url": "http://127.0.0.1:4321"}},
            "sandbox": {"allow_hosts": ["registry.npmjs.org"]},
        }
    )
    world.repo_home.mkdir(parents=True)
    done = world.job(1, "implement", "--print-boundary")
    assert done.returncode == 0, done.stderr
    line = json.loads(done.stdout)
    session = line["session_sandbox"]
    access = {m["path"]: m["access"] for m in session["mounts"]}
    assert session["mode"] == "bwrap"
    assert access[str(world.home.resolve())] == "hidden"
    assert access[str(world.config_path.parent.resolve())] == "hidden"
    assert access[line["checkout"]] == "rw"
    assert session["network"] == "own loopback, out only through the allowlisting proxy"
    assert session["allow"] == ["127.0.0.1:4321", "api.anthropic.com", "registry.npmjs.org"]
    assert not (world.repo_home / "jobs").exists()
