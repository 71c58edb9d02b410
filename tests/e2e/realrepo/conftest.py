"""Fixtures for the real-project tests: a wheelhouse for their offline setup."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.realrepo.wheels import make_wheelhouse


@pytest.fixture(scope="session")
def wheelhouse() -> Iterator[Path]:
    """Wheels of setuptools, setuptools-scm and pytest (and what they need), from this venv.

    In /var/tmp, not the tests' /tmp: setup runs boxed, where /tmp is the box's own and only
    the root's other folders are seen (read-only)."""
    dest = Path(tempfile.mkdtemp(prefix="conveyor-wheelhouse-", dir="/var/tmp"))
    try:
        yield make_wheelhouse(dest, ("setuptools", "setuptools-scm", "pytest"))
    finally:
        shutil.rmtree(dest, ignore_errors=True)
