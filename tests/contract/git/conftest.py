"""The git layer's tests share one origin: a bare repository and a work clone of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.git import Repo, init_bare
from tests.contract.git.workrepo import TEST_ENV, WorkRepo


@pytest.fixture
def origin(tmp_path: Path) -> tuple[Repo, WorkRepo]:
    """A bare origin with `main` (two commits) and a work clone of it."""
    bare = init_bare(tmp_path / "origin.git", TEST_ENV)
    work = WorkRepo.clone(bare.path.as_uri(), tmp_path / "work")
    work.commit({"a.txt": "one\n"}, "first")
    work.commit({"b.txt": "two\n"}, "second")
    work.push("main")
    return bare, work
