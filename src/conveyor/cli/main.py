"""The `conveyor` command: dispatches to the typer app, except `mcp` and `mcp-relay` (lean)."""

from __future__ import annotations

import gc
import importlib
import os
import sys
from typing import Any

# Groups of several commands that start without importing the whole typer app (the job
# and drive commands pull in the state and stage modules); `conveyor forge …` runs often.
LEAN_GROUPS = {"forge": "conveyor.cli.forge_cmd"}


def _import_app() -> Any:
    """The typer app, imported with the cyclic GC paused, then frozen out of its way.

    Importing it (githubkit, pydantic, the stages) makes hundreds of thousands of objects
    that live as long as the process; without this, full collections during and after the
    import walk them all again and again.
    """
    gc.disable()
    try:
        from conveyor.cli.app import app
    finally:
        gc.freeze()
        gc.enable()
    return app


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
        app = _import_app()
        app()
    except Exception as error:
        # A stage job's crash keeps its traceback for its log; elsewhere a person reads one
        # line naming the problem (CONVEYOR_DEBUG=1 shows the traceback).
        if sys.argv[1:2] == ["job"] or os.environ.get("CONVEYOR_DEBUG"):
            raise
        said = " ".join(str(error).split()) or "(no message)"
        where = "CONVEYOR_DEBUG=1 shows where"
        print(f"error: {type(error).__name__}: {said} ({where})", file=sys.stderr)  # noqa: T201
        sys.exit(1)
