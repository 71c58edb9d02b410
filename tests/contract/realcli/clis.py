"""Finding the installed agent CLIs, and reading the environment of running CLI processes."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
INSTALLER = REPO / "scripts" / "install-agent-clis"


def find_clis_bin() -> tuple[Path | None, str]:
    """The bin folder of the installed CLIs (or `CONVEYOR_AGENT_CLIS_BIN`), else why not."""
    named = os.environ.get("CONVEYOR_AGENT_CLIS_BIN")
    if named:
        return Path(named), ""
    done = subprocess.run(
        [str(INSTALLER), "--bin-dir"], capture_output=True, text=True, check=False, timeout=30
    )
    if done.returncode != 0:
        return None, done.stderr.strip() or f"{INSTALLER} --bin-dir exited {done.returncode}"
    return Path(done.stdout.strip()), ""


def cli_path(clis_bin: Path, name: str) -> Path:
    """The absolute path of one installed CLI; a missing one fails in CI and skips elsewhere."""
    path = clis_bin / name
    if not os.access(path, os.X_OK):
        message = f"{name} is missing from {clis_bin}; run {INSTALLER}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return path


def _parent(pid: int) -> int:
    """The parent of `pid`, or 0 once it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0
    return int(stat.rsplit(")", 1)[1].split()[1])


def _descends_from(pid: int, ancestor: int) -> bool:
    """Whether `ancestor` is among `pid`'s ancestors."""
    while pid > 1:
        pid = _parent(pid)
        if pid == ancestor:
            return True
    return False


@dataclass
class CliEnvironments:
    """The environments of this test run's CLI processes, read while they wait on the model.

    A process counts when it descends from the test process and its command line names
    a file under `root` (the install folder): the node launcher and the native binary.
    """

    root: Path
    seen: dict[int, dict[str, str]] = field(default_factory=dict)

    def capture(self) -> None:
        """Read the environment of every matching process now alive."""
        me = os.getpid()
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) in self.seen:
                continue
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
                raw = (entry / "environ").read_bytes()
            except OSError:
                continue
            if not any(str(self.root).encode() in arg for arg in argv):
                continue
            if not _descends_from(int(entry.name), me):
                continue
            pairs = (item.split(b"=", 1) for item in raw.split(b"\0") if b"=" in item)
            self.seen[int(entry.name)] = {
                k.decode(errors="replace"): v.decode(errors="replace") for k, v in pairs
            }

    def contain(self, needle: str) -> list[str]:
        """The `pid:NAME` of every captured variable whose name or value holds `needle`."""
        return [
            f"{pid}:{name}"
            for pid, env in self.seen.items()
            for name, value in env.items()
            if needle in name or needle in value
        ]
