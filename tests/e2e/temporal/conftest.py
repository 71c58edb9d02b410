"""Fixtures for the worker pool's end-to-end tests: a World running every stage."""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.emulator.app.server import ForgeServer
from conveyor.testing.world import World
from tests.e2e.orchestrator.chain import chain_config

LIMITS = chain_config(stage_caps={}, ci_poll_seconds=0.2, max_jobs=4)


@pytest.fixture
def forge_server_world(forge_server: ForgeServer, tmp_path: Path) -> World:
    """A fresh repository on the session's forge that runs every stage (review included)."""
    return World.create(forge_server, tmp_path / "world", config=LIMITS)
