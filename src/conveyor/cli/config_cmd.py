"""`conveyor config check`: print the resolved configuration, secrets redacted, or the errors."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated

import typer

from conveyor.cli.config_load import conveyor_home, load_or_exit
from conveyor.cli.config_place import inside_repository
from conveyor.forge.credentials import check_credentials

app = typer.Typer(
    help="Check the configuration.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

ConfigOption = Annotated[
    Path | None,
    typer.Option("--config", envvar="CONVEYOR_CONFIG", help="The repository's config file."),
]


@app.command("check")
def check(config: ConfigOption = None) -> None:
    """Validate the config and that its credentials can be read; print it resolved (secrets
    redacted) or its errors (exit 1)."""
    named = load_or_exit(config, code=1, place=True)
    loaded, path = named.config, named.path
    credentials = check_credentials(loaded, os.environ, path.parent)
    problems = [inside_repository(path), None if credentials is None else f"{path}: {credentials}"]
    if any(problems):  # every mistake at once, not one per try
        for problem in problems:
            if problem is not None:
                typer.echo(problem, err=True)
        raise typer.Exit(1)
    data = loaded.model_dump(mode="json")
    data["home"] = str(conveyor_home(named))
    account = data["account"]
    if account.get("token_env"):
        account["token_env"] = f"{account['token_env']} (value not shown)"
    typer.echo(json.dumps(data, indent=2, sort_keys=True))
