"""`conveyor live`: the live view of any running orchestrator, from its files, until Ctrl-C."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Annotated

import typer

from conveyor.cli.config_load import load_or_exit, repo_home


def live(
    config: Annotated[
        Path | None,
        typer.Option("--config", envvar="CONVEYOR_CONFIG", help="The repository's config file."),
    ] = None,
    backlog: Annotated[
        int,
        typer.Option("--backlog", min=0, help="Without a terminal: past events to print first."),
    ] = 20,
    interval: Annotated[
        float, typer.Option("--interval", min=0.05, help="Seconds between refreshes.")
    ] = 0.25,
) -> None:
    """Show queues, running jobs, recent events and spending; one line per event off a terminal."""
    named = load_or_exit(config)
    loaded = named.config
    from rich.console import Console

    from conveyor.cli.live.follow import LiveView

    home = repo_home(named)
    console = Console()
    if not console.is_terminal:
        typer.echo(f"following {home} (Ctrl-C to stop)", err=True)
    # Ctrl-C is taken by `sigwait`, never raised: a KeyboardInterrupt landing inside a lock's
    # `with` in the view (or in `threading`) could leave the lock held, and stopping the view
    # would then wait forever. Blocked first, so one pressed while the view starts waits.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    view = LiveView(home, console, money_per_day=loaded.money.per_day, backlog=backlog)
    try:
        view.start(interval)
        signal.sigwait({signal.SIGINT})
    finally:
        view.stop()
