"""Fixtures for the worker pool's end-to-end tests: the real Temporal dev server on loopback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from conveyor.testing.emulator import ForgeServer
from conveyor.testing.temporal_server import TemporalDevServer
from conveyor.testing.world import World
from tests.e2e.orchestrator.chain import chain_config

LIMITS = chain_config(stage_caps={}, ci_poll_seconds=0.2, max_jobs=4)


@pytest.fixture(scope="module")
def temporal_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TemporalDevServer]:
    """`temporal server start-dev` on a free loopback port, its database under a temp dir."""
    with TemporalDevServer(tmp_path_factory.mktemp("temporal")) as server:
        yield server


@pytest.fixture
def forge_server_world(forge_server: ForgeServer, tmp_path: Path) -> World:
    """A fresh repository on the session's forge that runs every stage (review included)."""
    return World.create(forge_server, tmp_path / "world", config=LIMITS)
