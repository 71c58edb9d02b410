"""`conveyor tick` against the embedded forge: an idle tick costs one request and no points."""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

from conveyor.emulator.app.server import ForgeServer
from conveyor.testing.world import World

TRIVIAL = f"{sys.executable} -c pass"


def _world(forge_server: ForgeServer, tmp_path: Path) -> World:
    return World.create(forge_server, tmp_path / "world", config={"commands": {"test": TRIVIAL}})


def test_a_second_tick_on_an_idle_repository_is_one_request_and_no_points(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """Nothing changed since the first tick: the second asks the forge one 304 and nothing else."""
    world = _world(forge_server, tmp_path)
    first = world.run("tick")
    assert first.returncode == 0, first.stderr
    before = forge_server.stats()
    second = world.run("tick")
    after = forge_server.stats()
    assert second.returncode == 0, second.stderr
    assert after["requests"] - before["requests"] == 1
    assert after["points"] - before["points"] == 0


def test_a_tick_writes_the_status_file_and_the_watchdog_memory(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """After a tick a person can read status.json (the lane, an empty queue) and watchdog.json."""
    world = _world(forge_server, tmp_path)
    done = world.run("tick")
    assert done.returncode == 0, done.stderr
    status = json.loads((world.repo_home / "status.json").read_text())
    assert status["repo"] == world.repo
    assert status["lane"] == (world.repo_home / "lane").read_text().strip()
    assert status["queue"] == {}
    assert status["jobs"] == []
    memory = json.loads((world.repo_home / "watchdog.json").read_text())
    assert memory["version"] == 1


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_tick_against_an_unreachable_forge_exits_non_zero_with_one_line_naming_the_url(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """The forge port is closed: `tick` fails, saying once where it went and what went wrong."""
    world = _world(forge_server, tmp_path)
    url = f"http://127.0.0.1:{_closed_port()}"
    world.write_config({"forge": {"api_url": url}, "commands": {"test": TRIVIAL}})
    done = world.run("tick")
    assert done.returncode != 0
    said = [line for line in (done.stdout + done.stderr).splitlines() if url in line]
    assert len(said) == 1, done.stdout + done.stderr
    assert "refused" in said[0].lower()
    assert "Traceback" not in done.stderr
