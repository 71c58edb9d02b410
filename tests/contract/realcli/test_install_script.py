"""`scripts/install-agent-clis`: the disk check, the skip when installed, the bin-dir query."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.contract.realcli.clis import INSTALLER

pytestmark = pytest.mark.contract


def _run(cache: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run the installer with its cache under `cache`."""
    environ = {**os.environ, "CONVEYOR_AGENT_CLIS_CACHE": str(cache), **env}
    return subprocess.run(
        [str(INSTALLER), *args],
        check=False,
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _target(cache: Path) -> Path:
    """The install folder the installer names when nothing is installed yet."""
    done = _run(cache, "--bin-dir")
    assert done.returncode == 3
    match = re.search(r"under (\S+);", done.stderr)
    assert match, done.stderr
    return Path(match.group(1))


def test_too_little_free_disk_stops_the_install_with_a_clear_error(tmp_path: Path) -> None:
    """Asking for more space than the disk has fails naming the need and the folder."""
    done = _run(tmp_path, CONVEYOR_AGENT_CLIS_NEED_MB=str(10**12))
    assert done.returncode == 1
    assert f"need {10**12} MB free under {tmp_path}" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_the_bin_dir_query_installs_nothing_and_names_the_folder(tmp_path: Path) -> None:
    """`--bin-dir` on an empty cache exits 3, says how to install, and leaves the cache empty."""
    target = _target(tmp_path)
    assert target.parent == tmp_path
    assert list(tmp_path.iterdir()) == []


def test_a_finished_install_is_reused_without_running_npm(tmp_path: Path) -> None:
    """With the completion marker present the bin folder is printed at once, npm untouched."""
    target = _target(tmp_path)
    target.mkdir(parents=True)
    (target / ".complete").write_text("done\n")
    done = _run(tmp_path, PATH="/usr/bin:/bin", npm_config_registry="http://127.0.0.1:9/")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(target / "node_modules" / ".bin")
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]
