"""Fixtures for a new user's first contact: a World per test on the session's embedded forge."""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.emulator.app.server import ForgeServer
from conveyor.testing.world import World


@pytest.fixture
def world(forge_server: ForgeServer, tmp_path: Path) -> World:
    """A fresh repository, people and config on the session's embedded forge."""
    return World.create(forge_server, tmp_path / "world")
