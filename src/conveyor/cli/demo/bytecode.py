"""The bytecode of what the demo's boxed test runs import from this interpreter, written first.

The sample's tests run with this interpreter's pytest (`issues.test_command`), boxed, in the
jobs' commands and in the forge's CI, where the interpreter's packages are read-only: an
interpreter there cannot keep the bytecode it compiles. pip writes bytecode at install; uv
does not (unless asked), so in a venv made by `make` every boxed test run compiled pytest,
pluggy and iniconfig from source again, about 0.2 s of CPU a run, unless an unboxed run had
written it. pygments (pytest's highlighting) is left out: its lexers are most of its
files and pytest loads three of them.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from conveyor.agents.boxed import write_bytecode

TEST_PACKAGES = ("pytest", "_pytest", "pluggy", "iniconfig")


def pytest_sources() -> list[Path]:
    """The source files of `TEST_PACKAGES` in this interpreter (a missing one: none)."""
    found: list[Path] = []
    for name in TEST_PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            continue
        origin = Path(spec.origin)
        found += sorted(origin.parent.rglob("*.py")) if origin.name == "__init__.py" else [origin]
    return found


def write_test_bytecode() -> None:
    """Write the bytecode of `pytest_sources` where it is missing or stale."""
    write_bytecode(pytest_sources())
