"""Fixtures for the orchestrator's end-to-end tests: a World on the session's forge."""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.emulator.app.server import ForgeServer
from conveyor.testing.world import World
from tests.e2e.orchestrator.chain import chain_config


@pytest.fixture
def world(forge_server: ForgeServer, tmp_path: Path) -> World:
    """A fresh repository whose commands are trivial, and whose loop stops at review."""
    return World.create(forge_server, tmp_path / "world", config=chain_config())
