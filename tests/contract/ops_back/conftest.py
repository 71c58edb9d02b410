"""Fixtures of the back half's ops contract tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from conveyor.testing.emulator import ForgeServer
from tests.contract.ops_back.backworld import Back, make_back


@pytest.fixture
def back(forge_server: ForgeServer, tmp_path: Path) -> Iterator[Back]:
    """A fresh repository on the session's embedded forge, without CI."""
    made = make_back(forge_server, tmp_path)
    yield made
    made.bot.close()


@pytest.fixture
def with_ci(forge_server: ForgeServer, tmp_path: Path) -> Iterator[Callable[[str], Back]]:
    """Make a repository whose CI command is the given one (the emulator runs it per PR head)."""
    made: list[Back] = []

    def make(ci: str) -> Back:
        made.append(make_back(forge_server, tmp_path / f"ci{len(made)}", ci=ci))
        return made[-1]

    yield make
    for back in made:
        back.bot.close()
