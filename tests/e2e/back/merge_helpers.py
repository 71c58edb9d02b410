"""What the merge end-to-end tests share: a World with fast CI polls, a clean back half, and an
issue handed over to a person."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from conveyor.core.labels import Status
from conveyor.core.state import Stage
from conveyor.emulator.app.server import ForgeServer
from conveyor.forge.types import PullRequest
from conveyor.testing.world import World
from tests.e2e.helpers import implement_done, reply, spec_ready, triage

# The demo's fast CI poll: a repository without CI is ungated after two reads this far apart.
FAST = {"limits": {"claim_wait_seconds": [0, 0], "ci_poll_seconds": 0.2}}


@pytest.fixture
def fast_world(forge_server: ForgeServer, tmp_path: Path) -> World:
    """A World whose CI waits are short."""
    return World.create(forge_server, tmp_path / "world", config=FAST)


def clean_back_half(tag: str) -> list[dict[str, Any]]:
    """Three lenses with nothing to say, acceptance passing, security finding nothing."""
    lenses = [
        {
            "tag": tag,
            "kind": f"review-{name}",
            "turns": [reply({"lens": name, "findings": [], "summary": f"{name}: fine"})],
        }
        for name in ("correctness", "tests", "scope")
    ]
    accept: dict[str, Any] = {
        "verdict": "pass",
        "reason": "total() sums the stock as asked",
        "missing": [],
        "no_tests_reason_holds": None,
        "summary": "accepted",
    }
    security = {"findings": [], "summary": "nothing harmful"}
    return [
        *lenses,
        {"tag": tag, "kind": "accept", "turns": [reply(accept)]},
        {"tag": tag, "kind": "security", "turns": [reply(security)]},
    ]


def push_to_base(world: World, tmp_path: Path, path: str, text: str) -> str:
    """A person pushes one commit to main (the forge's hook sees it like any push)."""
    clone = tmp_path / "person"
    git = ["git", "-c", "user.name=p", "-c", "user.email=p@p", "-c", "core.hooksPath=/dev/null"]
    subprocess.run([*git, "clone", "-q", str(world.bare().path), str(clone)], check=True)
    (clone / path).write_text(text)
    subprocess.run([*git, "add", path], cwd=clone, check=True)
    subprocess.run([*git, "commit", "-q", "-m", f"Add {path}"], cwd=clone, check=True)
    subprocess.run([*git, "push", "-q", "origin", "HEAD:main"], cwd=clone, check=True)
    head = world.ref("refs/heads/main")
    assert head is not None
    return head


def handed_over(
    forge_server: ForgeServer, tmp_path: Path, tag: str, config: dict[str, Any]
) -> tuple[World, int, PullRequest]:
    """A world (with `config`, `handover.merge = "person"` in it) whose issue went through the
    pipeline to its handover: approved, its PR open."""
    world = World.create(forge_server, tmp_path / "world", config=config)
    world.write_scenario([triage(tag), spec_ready(tag), implement_done(tag), *clean_back_half(tag)])
    number = world.open_issue(f"Add a stock total [{tag}]", "Sum the quantities.").number
    done = world.drive(number)
    assert done.returncode == 0, done.stdout + done.stderr
    state = world.state(number)
    assert state is not None
    assert state.stage is Stage.APPROVED, done.stdout
    assert world.labels(number) == (Status.APPROVED.value,)
    pr = world.pr(number)
    assert pr is not None
    assert (pr.state, pr.merged) == ("open", False)
    return world, number, pr
