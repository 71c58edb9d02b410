"""Fixtures for verify's tests: the repository, a session-like environment, the commands."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conveyor.core.config import Commands
from tests.contract.verify.repo_kit import BASE_FILES, PYTEST, GitRepo


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    """A repository whose first commit (the base) has a bug in `calc.add`."""
    work = GitRepo.init(tmp_path / "checkout")
    work.commit(BASE_FILES, "base")
    return work


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """An allowlisted environment like the sessions': no tokens, a home in tmp_path."""
    home = tmp_path / "home"
    home.mkdir()
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        # Plugins installed for Conveyor's own tests only slow the tiny suite down.
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
    }


@pytest.fixture
def commands() -> Commands:
    """A pytest suite with quick lint and typecheck stand-ins."""
    return Commands(
        test=PYTEST,
        lint="echo lint clean",
        typecheck="echo types clean",
    )
