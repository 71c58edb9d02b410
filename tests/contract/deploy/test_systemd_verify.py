"""systemd's own check of `contrib/systemd/conveyor.service`, where systemd-analyze exists."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.contract
UNIT = Path(__file__).resolve().parents[3] / "contrib" / "systemd" / "conveyor.service"


def test_systemd_analyze_verifies_the_unit_with_no_complaint(tmp_path: Path) -> None:
    """Every key is one systemd knows and the command exists (this venv's `conveyor`)."""
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("no systemd-analyze on PATH to verify the unit with")
    conveyor = Path(sys.executable).with_name("conveyor")
    text = UNIT.read_text(encoding="utf-8").replace("%h/.local/bin/conveyor", str(conveyor))
    unit = tmp_path / "conveyor.service"
    unit.write_text(text, encoding="utf-8")
    checked = subprocess.run(
        [analyze, "verify", str(unit)], capture_output=True, text=True, timeout=60, check=False
    )
    if "Failed to initialize manager" in checked.stderr:
        pytest.skip(f"systemd-analyze cannot run here: {checked.stderr.strip()}")
    assert checked.returncode == 0, checked.stderr
    assert checked.stderr.strip() == ""
