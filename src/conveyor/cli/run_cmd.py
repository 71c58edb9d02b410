"""`conveyor run` (the orchestrator loop) and `conveyor tick` (one pass, waiting for its jobs)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from conveyor.cli.config_load import ConfigError, load_config
from conveyor.core.config import Config

EXIT_USAGE = 2
ConfigOption = Annotated[
    Path | None,
    typer.Option("--config", envvar="CONVEYOR_CONFIG", help="The repository's config file."),
]


def _load(config: Path | None) -> tuple[Config, Path]:
    """The config and its resolved path, or a usage error naming each mistake."""
    try:
        loaded = load_config(config)
    except ConfigError as exc:
        for line in exc.lines:
            typer.echo(line, err=True)
        raise typer.Exit(EXIT_USAGE) from exc
    return loaded, Path(config or os.environ["CONVEYOR_CONFIG"]).resolve()


def run(
    config: ConfigOption = None,
    until_idle: Annotated[
        bool,
        typer.Option("--until-idle", help="Exit once nothing runs and nothing can start."),
    ] = False,
) -> None:
    """Keep taking waiting issues through their stages; Ctrl-C cools down, twice stops jobs."""
    from conveyor.forge.connect import CredentialsError  # lazy: githubkit is slow to import
    from conveyor.orchestrator.shell.loop import Interrupts, catching, open_orchestrator, run_loop

    loaded, path = _load(config)
    try:
        orc = open_orchestrator(loaded, path, os.environ, echo=True)
    except CredentialsError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(EXIT_USAGE) from exc
    interrupts = Interrupts()
    with catching(interrupts), orc.store:
        code = run_loop(orc, interrupts, until_idle=until_idle)
    raise typer.Exit(code)


def tick(config: ConfigOption = None) -> None:
    """One orchestrator pass: start what is due, then wait for the jobs it started."""
    from conveyor.forge.connect import CredentialsError  # lazy: githubkit is slow to import
    from conveyor.orchestrator.shell.loop import open_orchestrator, run_once

    loaded, path = _load(config)
    try:
        orc = open_orchestrator(loaded, path, os.environ, echo=True)
    except CredentialsError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(EXIT_USAGE) from exc
    with orc.store:
        code = run_once(orc)
    raise typer.Exit(code)
