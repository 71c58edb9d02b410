"""Fixtures for reviews of people's PRs: a World whose config turns the label on."""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.emulator.app.server import ForgeServer
from conveyor.testing.world import World
from tests.e2e.people.helpers import LABEL


@pytest.fixture
def world(forge_server: ForgeServer, tmp_path: Path) -> World:
    """A fresh repository whose config reviews PRs a trusted person labels."""
    return World.create(forge_server, tmp_path / "world", config={"pr_reviews": {"label": LABEL}})
