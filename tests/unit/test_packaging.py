"""What `pip install conveyor` promises: Python 3.11 to 3.13, and the demo's test runner."""

from __future__ import annotations

import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def test_python_311_to_313_are_accepted_and_the_demo_needs_no_extra() -> None:
    """requires-python admits 3.11, 3.12 and 3.13; pytest (the sample's tests) is a runtime dep."""
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    allowed = SpecifierSet(project["requires-python"])
    assert all(f"{version}.0" in allowed for version in ("3.11", "3.12", "3.13"))
    assert "3.10.0" not in allowed
    runtime = {Requirement(line).name for line in project["dependencies"]}
    assert {"pytest", "markdown-it-py"} <= runtime
