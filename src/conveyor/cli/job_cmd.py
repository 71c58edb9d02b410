"""`conveyor job`: run one stage of one issue as its own process (see `conveyor.job.main`)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Annotated

import typer

from conveyor.cli.config_load import load_or_exit
from conveyor.core.state import FINAL, Stage

EXIT_USAGE = 2
LANE = re.compile(r"[A-Za-z0-9._-]{1,80}")
STAGES = [s.value for s in Stage if s not in FINAL]


def parse_stage(value: str) -> Stage:
    """A stage name from the command line, or a usage error naming the choices."""
    if value not in STAGES:
        typer.echo(f"--stage: expected one of {', '.join(STAGES)}, got {value!r}", err=True)
        raise typer.Exit(EXIT_USAGE)
    return Stage(value)


def job(  # noqa: PLR0917 - typer passes options as parameters
    issue: Annotated[int, typer.Option("--issue", help="The issue number.", min=1)],
    stage: Annotated[str, typer.Option("--stage", help=f"One of: {', '.join(STAGES)}.")],
    config: Annotated[
        Path | None,
        typer.Option("--config", envvar="CONVEYOR_CONFIG", help="The repository's config file."),
    ] = None,
    lane: Annotated[str | None, typer.Option("--lane", help="Claim for this lane.")] = None,
    resume: Annotated[
        bool, typer.Option("--resume", help="Resume the stage after its job died.")
    ] = False,
    boundary: Annotated[
        bool, typer.Option("--print-boundary", help="Print the job's boundary and exit.")
    ] = False,
    take_stopped: Annotated[
        bool, typer.Option("--take-stopped", help="Restart a stopped issue.")
    ] = False,
    stack_on: Annotated[
        int | None,
        typer.Option("--stack-on", help="Start on this prerequisite issue's branch.", min=1),
    ] = None,
) -> None:
    """Run one stage of one issue: 0 ended, 1 error (issue saved), 2 usage, 3 not claimable."""
    from conveyor.forge.connect import CredentialsError  # lazy: githubkit is slow to import
    from conveyor.forge.errors import ForgeError
    from conveyor.job.main import JobOptions, print_boundary, run_job

    chosen = parse_stage(stage)
    if lane is not None and not LANE.fullmatch(lane):
        typer.echo(f"--lane: expected letters, digits, '.', '_' or '-', got {lane!r}", err=True)
        raise typer.Exit(EXIT_USAGE)
    loaded = load_or_exit(config, credentials=True)
    opts = JobOptions(
        config=loaded.config,
        config_dir=loaded.resolved.parent,
        issue=issue,
        stage=chosen,
        lane=lane,
        resume=resume,
        take_stopped=take_stopped,
        stack_on=stack_on,
    )
    if boundary:
        raise typer.Exit(print_boundary(opts, os.environ))
    try:
        code = run_job(opts, os.environ)
    except CredentialsError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(EXIT_USAGE) from exc
    except ForgeError as exc:  # before the claim finished: nothing of the job's is running
        typer.echo(f"conveyor job: the forge failed: {exc}", err=True)
        raise typer.Exit(1) from exc
    raise typer.Exit(code)
