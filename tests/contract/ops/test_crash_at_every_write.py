"""Crash at every write: each op, failed at its k-th write and run again, ends as one clean run."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from conveyor.emulator.app.server import ForgeServer
from conveyor.testing.faults import FaultyForge, InjectedFault, When
from tests.contract.ops.scenarios import SCENARIOS, Scenario
from tests.contract.ops.world import NOW, IssueView, World, invariants_of, make_world

pytestmark = pytest.mark.contract


@contextmanager
def fresh_world(server: ForgeServer, folder: Path) -> Iterator[World]:
    """A new repository for one run, its clients closed afterwards."""
    folder.mkdir(parents=True)
    world = make_world(server, folder)
    try:
        yield world
    finally:
        for forge in (world.bot, world.owner, world.visitor):
            forge.close()


Seen = tuple[dict[int, IssueView], dict[str, str]]


def files_of(world: World) -> dict[str, str]:
    """Every file the ops wrote under the world's home (issue.md and any leftover partial)."""
    home = world.home
    if not home.exists():
        return {}
    found = (p for p in sorted(home.rglob("*")) if p.is_file())
    generic = world.config.repo_dirname
    return {
        str(p.relative_to(home)).replace(generic, "REPO"): world.normal(p.read_text())
        for p in found
    }


def seen(world: World) -> Seen:
    """The forge as a person sees it, and the run folders' files."""
    return world.seen(), files_of(world)


def clean_run(server: ForgeServer, folder: Path, scenario: Scenario) -> tuple[int, Seen]:
    """Run the op once without faults: how many writes it made, and what a person then sees."""
    with fresh_world(server, folder) as world:
        number = scenario.setup(world)
        counting = FaultyForge(world.bot)
        scenario.act(world, counting, number)
        return counting.writes, seen(world)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_an_op_interrupted_at_any_write_finishes_without_duplicates(
    scenario: Scenario, forge_server: ForgeServer, tmp_path: Path
) -> None:
    """For every k and both failure kinds, fault then rerun leaves the forge as a clean run does."""
    writes, expected = clean_run(forge_server, tmp_path / "clean", scenario)
    assert writes > 0
    for k in range(1, writes + 1):
        when: When
        for when in ("before", "after"):
            with fresh_world(forge_server, tmp_path / f"k{k}-{when}") as world:
                number = scenario.setup(world)
                faulty = FaultyForge(world.bot, fail_at=k, when=when)
                with pytest.raises(InjectedFault):
                    scenario.act(world, faulty, number)
                scenario.act(world, world.bot, number)
                assert seen(world) == expected, f"{scenario.name}: write {k} failed {when}"
                assert invariants_of(world, NOW) == ()
