"""A config `home = "~/x"`: the orchestrator, its jobs and every reader use one folder (#50)."""

from __future__ import annotations

import json
from pathlib import Path

from conveyor.testing.world import World
from tests.e2e.helpers import triage
from tests.e2e.orchestrator.chain import chain_config


def test_jobs_and_readers_agree_on_a_home_under_the_tilde(world: World) -> None:
    """The loop's triage job writes under `$HOME/x`, where `status`, `cost`, `transcript` and
    the timeline find it; no folder named `~` is made anywhere."""
    user_home = Path(world.env()["HOME"])
    config = chain_config(stage_caps={"spec": 0, "review": 0})
    world.write_config(config | {"home": "~/x"})
    world.write_scenario([triage("th")])
    number = world.open_issue("Add th [th]", "th() returns 1.").number
    done = world.run("run", "--until-idle")
    assert done.returncode == 0, done.stdout + done.stderr
    folder = user_home / "x" / world.repo.replace("/", "__")
    assert list(folder.glob(f"jobs/issue-{number}-triage-*/job.json"))
    assert (folder / "status.json").is_file()
    for root in (Path.cwd(), world.root, world.config_path.parent, user_home):
        assert not (root / "~").exists()
    status = world.run("status", "--json")
    assert status.returncode == 0, status.stderr
    shown = json.loads(status.stdout)
    assert shown["repo"] == world.repo
    assert number in shown["queue"]["spec"]
    cost = world.run("cost", "--json")
    assert cost.returncode == 0, cost.stderr
    assert json.loads(cost.stdout)["lines"][0]["sessions"] == 1
    transcript = world.run("transcript", "--issue", str(number))
    assert transcript.returncode == 0, transcript.stdout + transcript.stderr
    timeline = world.run("status", "--issue", str(number), "--timeline")
    assert timeline.returncode == 0, timeline.stderr
    assert "triage" in timeline.stdout
