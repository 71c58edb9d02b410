"""`conveyor resume --issue N`: take a stopped issue's stop label off through the forge client.

Removing the label is how a person lifts a stop (STOP-6): the next tick restarts the
issue with fresh limits, at the stage the restart rule picks (`restart_note` says which).
The command does it with the config's account through the same client the pipeline uses,
so it works on GitHub and on the embedded forge alike (which has no label editor of its
own).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from conveyor.cli.config_load import load_or_exit
from conveyor.cli.screen import say
from conveyor.core.labels import STOP_PREFIX
from conveyor.core.restart import restart_note
from conveyor.core.state_codec import find_state

EXIT_USAGE = 2
EXIT_NOT_STOPPED = 1


def resume(
    issue: Annotated[int, typer.Option("--issue", help="The stopped issue's number.", min=1)],
    config: Annotated[
        Path | None,
        typer.Option("--config", envvar="CONVEYOR_CONFIG", help="The repository's config file."),
    ] = None,
) -> None:
    """Resume a stopped issue: remove its `agent:stopped-*` label; the next tick restarts it."""
    from conveyor.forge.connect import CredentialsError, connect  # lazy: githubkit is slow
    from conveyor.forge.errors import ForgeError, NotFound

    named = load_or_exit(config, credentials=True)
    loaded, path = named.config, named.resolved
    try:
        forge = connect(loaded, os.environ, base_dir=path.parent)
        found = forge.get_issue(issue)
        stops = [name for name in found.labels if name.startswith(STOP_PREFIX)]
        state = None
        if stops:
            comments = forge.list_comments(issue).comments
            state = find_state(comments, loaded.account.login).state
        for name in stops:
            forge.remove_label(issue, name)
    except CredentialsError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(EXIT_USAGE) from exc
    except NotFound as exc:
        typer.echo(f"--issue {issue}: {loaded.repo} has no such issue", err=True)
        raise typer.Exit(EXIT_NOT_STOPPED) from exc
    except ForgeError as exc:
        typer.echo(f"--issue {issue}: {exc}", err=True)
        raise typer.Exit(1) from exc
    if not stops:
        shown = ", ".join(found.labels) or "none"
        # Labels are anyone's text with the right to make one: escaped.
        say(f"#{issue} is not stopped (its labels: {shown}); nothing changed", err=True)
        raise typer.Exit(EXIT_NOT_STOPPED)
    where = "" if state is None or state.stopped is None else f" {restart_note(state)}"
    typer.echo(
        f"#{issue}: removed {', '.join(stops)}; the next tick (`conveyor run` or `tick`)"
        f" restarts it with fresh limits{where}"
    )
