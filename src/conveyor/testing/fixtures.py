"""Pytest fixtures shared by Conveyor's tests, benchmarks' smoke tests and the demo's test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from conveyor.emulator.app.server import ForgeServer
from conveyor.testing.temporal_server import TemporalDevServer


@pytest.fixture(scope="session")
def forge_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ForgeServer]:
    """One embedded forge per test session, on loopback, with its data under a temp dir."""
    with ForgeServer(tmp_path_factory.mktemp("forge")) as server:
        yield server


@pytest.fixture(scope="session")
def temporal_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TemporalDevServer]:
    """The real Temporal dev server on a free loopback port, started for the first test asking."""
    with TemporalDevServer(tmp_path_factory.mktemp("temporal")) as server:
        yield server
