"""Fixtures for the real-project tests: a wheelhouse for their offline setup."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.realrepo.wheels import make_wheelhouse


@pytest.fixture(scope="session")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Wheels of setuptools, setuptools-scm and pytest (and what they need), from this venv."""
    dest = tmp_path_factory.mktemp("wheelhouse")
    return make_wheelhouse(dest, ("setuptools", "setuptools-scm", "pytest"))
