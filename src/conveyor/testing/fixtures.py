"""Pytest fixtures shared by Conveyor's tests, benchmarks' smoke tests and the demo's test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from conveyor.testing.emulator import ForgeServer


@pytest.fixture(scope="session")
def forge_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ForgeServer]:
    """One embedded forge per test session, on loopback, with its data under a temp dir."""
    with ForgeServer(tmp_path_factory.mktemp("forge")) as server:
        yield server
