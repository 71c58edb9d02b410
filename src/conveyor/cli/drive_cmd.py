"""`conveyor drive`: run one issue's stage jobs one after another in the foreground."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from conveyor.cli.box_gate import require_box
from conveyor.cli.config_load import load_or_exit
from conveyor.cli.job_cmd import EXIT_USAGE, parse_stage


def drive_cmd(
    issue: Annotated[int, typer.Option("--issue", help="The issue number.", min=1)],
    config: Annotated[
        Path | None,
        typer.Option("--config", envvar="CONVEYOR_CONFIG", help="The repository's config file."),
    ] = None,
    through: Annotated[
        str | None, typer.Option("--through", help="Stop after this stage's job.")
    ] = None,
    take_stopped: Annotated[
        bool, typer.Option("--take-stopped", help="Restart the issue if it is stopped.")
    ] = False,
    lane: Annotated[str | None, typer.Option("--lane", help="Claim for this lane.")] = None,
) -> None:
    """Run the issue's stage jobs until it merges, stops, asks, splits, waits or --through."""
    from conveyor.forge.connect import CredentialsError  # lazy: githubkit is slow to import
    from conveyor.job.drive import DriveOptions, drive

    stage = parse_stage(through) if through is not None else None
    named = load_or_exit(config, credentials=True)
    require_box(named.config)
    opts = DriveOptions(named.config, named.resolved, issue, stage, take_stopped, lane)
    try:
        code = drive(opts, os.environ)
    except CredentialsError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(EXIT_USAGE) from exc
    raise typer.Exit(code)
