"""How a process starts `conveyor ARGS` again: by exec (`conveyor_argv`) or in a forked child
(`run_conveyor_main`), both through the CLI's one entry point; how a person types it
(`shown_command`).

A job, a drive's stage and the tests' commands are `conveyor job …` re-entered. The job layer
sits below the CLI, so it names the entry point instead of importing it; this is the one
place the name is written (pyproject's `[project.scripts]` names the same; a test keeps them
equal).
"""

from __future__ import annotations

import functools
import importlib
import shlex
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

ENTRY_MODULE = "conveyor.cli.main"
ENTRY_FUNCTION = "main"
ENTRY_POINT = f"{ENTRY_MODULE}:{ENTRY_FUNCTION}"


def python_argv() -> list[str]:
    """`conveyor` as this interpreter runs it, with no script: `python -c …`."""
    call = f"from {ENTRY_MODULE} import {ENTRY_FUNCTION}; {ENTRY_FUNCTION}()"
    return [sys.executable, "-c", call]


def conveyor_argv() -> list[str]:
    """How to start `conveyor` with this interpreter: the script beside it, else `-c`."""
    script = Path(sys.executable).with_name("conveyor")
    if script.is_file():
        return [str(script)]
    return python_argv()


@functools.cache
def shown_command() -> str:
    """`conveyor` as a person types it to reach this install: the bare name when PATH finds
    this very script, else its path (a virtual environment's `bin` is seldom on PATH)."""
    argv = conveyor_argv()
    found = shutil.which("conveyor")
    if len(argv) == 1 and found is not None and Path(found).resolve() == Path(argv[0]).resolve():
        return "conveyor"
    return shlex.join(argv)


def run_conveyor_main(args: Sequence[str]) -> int:
    """In a forked child: run `conveyor ARGS` through the entry point an exec'd one runs."""
    entry = importlib.import_module(ENTRY_MODULE)
    sys.argv = ["conveyor", *(str(a) for a in args)]
    getattr(entry, ENTRY_FUNCTION)()
    return 0
