"""The contract tests' box: the one `auto` selects on this machine (they fail where none can
be built, as the orchestrator refuses to start there)."""

from __future__ import annotations

import pytest

from conveyor.sandbox import Box, select_box


@pytest.fixture(scope="session")
def box() -> Box:
    """A real bwrap box."""
    return select_box("auto")
