"""`job/entry.py`: the one name of the CLI's entry point that jobs, drives and the tests'
commands re-enter, by exec or in a forked child."""

from __future__ import annotations

import os
import subprocess
import tomllib
from importlib.metadata import entry_points, version
from pathlib import Path

from conveyor.job.entry import ENTRY_POINT, python_argv

PYPROJECT = Path(__file__).resolve().parents[3] / "pyproject.toml"


def test_the_entry_point_is_the_one_the_conveyor_script_runs() -> None:
    """pyproject's `[project.scripts]` and the installed script name the same function."""
    scripts = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["scripts"]
    installed = [e.value for e in entry_points(group="console_scripts", name="conveyor")]
    assert (scripts["conveyor"], installed) == (ENTRY_POINT, [ENTRY_POINT])


def test_the_interpreter_form_runs_conveyor_without_its_script() -> None:
    """`python -c …` (used where no script sits beside the interpreter) is `conveyor` itself."""
    done = subprocess.run(
        [*python_argv(), "--version"],
        capture_output=True, text=True, timeout=60, env=dict(os.environ), check=False,
    )  # fmt: skip
    assert (done.returncode, done.stdout.strip()) == (0, f"conveyor {version('conveyor')}")
