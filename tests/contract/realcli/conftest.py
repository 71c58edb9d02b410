"""Real-CLI tests: the installed CLIs' folder, failing in CI when they are missing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.contract.realcli.clis import INSTALLER, find_clis_bin


@pytest.fixture(scope="session")
def clis_bin() -> Path:
    """The folder holding `claude`, `codex` and `opencode`; in CI a missing install fails."""
    folder, why = find_clis_bin()
    if folder is None:
        message = f"the agent CLIs are not installed ({why}); run `make test` or {INSTALLER}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return folder
