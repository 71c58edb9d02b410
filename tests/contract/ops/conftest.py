"""Fixtures of the ops' contract tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from conveyor.emulator.app.server import ForgeServer
from tests.contract.ops.world import NOW, World, invariants_of, make_world


@pytest.fixture
def world(forge_server: ForgeServer, tmp_path: Path) -> Iterator[World]:
    """A fresh repository on the session's embedded forge."""
    made = make_world(forge_server, tmp_path)
    yield made
    assert invariants_of(made, NOW) == ()
    for forge in (made.bot, made.owner, made.visitor):
        forge.close()
