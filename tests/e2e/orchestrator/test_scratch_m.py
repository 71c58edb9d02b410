"""scratch"""
from __future__ import annotations
import sys, time
from pathlib import Path
from conveyor.testing.emulator import ForgeServer
from conveyor.testing.world import World
from tests.e2e.helpers import triage, spec_ready, implement_done

def test_try(forge_server: ForgeServer, tmp_path: Path) -> None:
    world = World.create(forge_server, tmp_path / "w", config={"commands": {"test": "! grep -rq NotImplementedError inventory"}, "limits": {"poll_seconds": 1}})
    world.write_scenario([triage("a"), spec_ready("a"), implement_done("a")])
    issue = world.open_issue("Add a stock total [a]", "Sum it.")
    t = time.monotonic()
    done = world.run("run", "--until-idle", timeout=200)
    print("elapsed", time.monotonic() - t)
    print(done.stdout[-4000:]); print(done.stderr[-3000:])
    print(world.state(issue.number))
    print(world.labels(issue.number))
    for log in sorted((world.repo_home / "logs").glob("*")):
        print(log.name, log.read_text()[-1500:])
    assert False
