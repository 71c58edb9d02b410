"""`conveyor forge …`: run and administer the embedded GitHub-compatible forge."""

from __future__ import annotations

import typer

app = typer.Typer(help="The embedded GitHub-compatible forge.", no_args_is_help=True)
