"""Test-session set-up: hypothesis profiles, refusing stand-ins for real agent CLIs, test order."""

from __future__ import annotations

import gc
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from tests.worker_blocks import CollectedTest, worker_order

pytest_plugins = ["conveyor.testing.fixtures"]

settings.register_profile("ci", derandomize=True, deadline=None, max_examples=100)
settings.register_profile("dev", deadline=None, max_examples=50)
settings.load_profile("ci" if os.environ.get("CI") == "true" else "dev")

REFUSED = ("claude", "codex", "opencode", "gh")


@pytest.fixture(scope="session", autouse=True)
def refuse_real_clis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Put refusing `claude`, `codex`, `opencode` and `gh` first on PATH.

    A test that forgets its fake fails loudly instead of launching a real CLI.
    Tests that run a real CLI on purpose name its absolute path.
    """
    folder = tmp_path_factory.mktemp("refusing-bin")
    for name in REFUSED:
        script = folder / name
        script.write_text(
            "#!/bin/sh\n"
            f'echo "refused: a test tried to launch the real {name} CLI from PATH" >&2\n'
            "exit 97\n"
        )
        script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    old = os.environ.get("PATH", "")
    os.environ["PATH"] = f"{folder}{os.pathsep}{old}"
    yield folder
    os.environ["PATH"] = old


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On xdist workers, start each worker's block with its share of the long tests.

    Made for `--dist worksteal` (xdist sets `dist` to "no" on the workers, so the mode
    cannot be read here). Every worker collects the same order (the function is
    deterministic); only the order changes, never which tests run (`tests/worker_blocks.py`).
    """
    del config
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0"))
    if workers < 2:
        return
    order = worker_order([CollectedTest.of(item.nodeid) for item in items], workers)
    items[:] = [items[index] for index in order]


def pytest_collection_finish(session: pytest.Session) -> None:
    """Move what start-up and collection made (every test module, the libraries they import)
    to the GC's permanent generation: a full collection in a worker no longer walks it."""
    del session
    gc.freeze()
