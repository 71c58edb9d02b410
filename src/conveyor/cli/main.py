"""The `conveyor` command: dispatches to the typer app, except `mcp` and `mcp-relay` (lean)."""

from __future__ import annotations

import functools
import gc
import importlib
import os
import sys
from typing import Any

# Groups of several commands that start without importing the whole typer app (the job
# and drive commands pull in the state and stage modules); `conveyor forge …` runs often.
LEAN_GROUPS = {"forge": "conveyor.cli.forge_cmd"}


@functools.cache
def cli_command() -> Any:
    """The typer app as its click command, built once per process (a job forked from a
    process that built it, `job/fork_start.py::preload`, inherits it).

    Calling the typer app builds the command anew each time: every command's parameters,
    their annotations evaluated (80 ms of CPU per forked job). Importing the app (githubkit,
    pydantic, the stages) and building it make hundreds of thousands of objects that live
    as long as the process: the cyclic GC is paused meanwhile, then they are frozen out of
    its way, or full collections would walk them all again and again.
    """
    gc.disable()
    try:
        from typer.main import get_command

        from conveyor.cli.app import app

        command = get_command(app)
    finally:
        gc.freeze()
        gc.enable()
    return command


def main() -> None:
    """Entry point. `conveyor mcp` and `mcp-relay` skip typer, rich and githubkit so sessions
    start fast; `conveyor forge` skips the other command groups."""
    if len(sys.argv) > 1 and sys.argv[1] == "mcp":
        from conveyor.agents.mcp_server import main as mcp_main

        mcp_main(sys.argv[2:])
        return
    if len(sys.argv) > 1 and sys.argv[1] == "mcp-relay":
        from conveyor.agents.mcp_relay import main as relay_main

        relay_main(sys.argv[2:])
        return
    try:
        if len(sys.argv) > 1 and sys.argv[1] in LEAN_GROUPS:
            group = importlib.import_module(LEAN_GROUPS[sys.argv[1]])
            group.app(args=sys.argv[2:], prog_name=f"conveyor {sys.argv[1]}")
            return
        cli_command()()
    except Exception as error:
        # A stage job's crash keeps its traceback for its log; elsewhere a person reads one
        # line naming the problem (CONVEYOR_DEBUG=1 shows the traceback).
        if sys.argv[1:2] == ["job"] or os.environ.get("CONVEYOR_DEBUG"):
            raise
        said = " ".join(str(error).split()) or "(no message)"
        where = "CONVEYOR_DEBUG=1 shows where"
        print(f"error: {type(error).__name__}: {said} ({where})", file=sys.stderr)  # noqa: T201
        sys.exit(1)
