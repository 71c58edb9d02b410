"""Fixtures for the stage job's contract tests: a World per test on the session's forge, and
a writer's boxed checkout for the hostile-git tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from conveyor.emulator.app.server import ForgeServer
from conveyor.sandbox import Box
from conveyor.testing.world import World
from tests.contract.job.hostile_git import HostileJob, hostile_job

TOKENS = ("token_env", "token_file")


@pytest.fixture
def world(forge_server: ForgeServer, tmp_path: Path) -> World:
    """A fresh repository, people and config on the session's embedded forge."""
    return World.create(forge_server, tmp_path / "world")


@pytest.fixture(scope="module")
def box() -> Box:
    """A real bwrap box (the one `auto` selects here)."""
    from conveyor.sandbox import select_box

    return select_box("auto")


@pytest.fixture(params=TOKENS)
def job(request: pytest.FixtureRequest, tmp_path: Path, box: Box) -> Iterator[HostileJob]:
    """A writer's checkout, its token read as the parameter says."""
    yield from hostile_job(tmp_path / "job", box, request.param)
