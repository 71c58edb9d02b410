"""The `conveyor` command: dispatches to the typer app, except `mcp`, which starts lean."""

from __future__ import annotations

import sys


def main() -> None:
    """Entry point. `conveyor mcp` skips typer, rich and githubkit so sessions start fast."""
    if len(sys.argv) > 1 and sys.argv[1] == "mcp":
        from conveyor.agents.mcp_server import main as mcp_main

        mcp_main(sys.argv[2:])
        return
    from conveyor.cli.app import app

    app()
