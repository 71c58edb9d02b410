"""Fixtures of the back half's ops contract tests."""

from __future__ import annotations

from collections.abc import Iterator
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
