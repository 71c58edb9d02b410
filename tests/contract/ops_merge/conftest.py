"""Fixtures of the contract tests of the ops from sync to merge and close-out."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from conveyor.emulator.app.server import ForgeServer
from tests.contract.ops_merge.merge_world import MergeWorld, make_merge_world


@pytest.fixture
def world(forge_server: ForgeServer, tmp_path: Path) -> Iterator[MergeWorld]:
    """A fresh repository on the session's embedded forge, without CI."""
    made = make_merge_world(forge_server, tmp_path)
    yield made
    made.bot.close()


@pytest.fixture
def with_ci(forge_server: ForgeServer, tmp_path: Path) -> Iterator[Callable[[str], MergeWorld]]:
    """Make a repository whose CI command is the given one (the emulator runs it per PR head)."""
    made: list[MergeWorld] = []

    def make(ci: str) -> MergeWorld:
        made.append(make_merge_world(forge_server, tmp_path / f"ci{len(made)}", ci=ci))
        return made[-1]

    yield make
    for world in made:
        world.bot.close()
