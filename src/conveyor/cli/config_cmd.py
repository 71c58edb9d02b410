"""`conveyor config check`: print the resolved configuration, secrets redacted, or the errors."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated

import typer

from conveyor.cli.config_load import ConfigError, config_path, conveyor_home, load_config
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
    try:
        path = config_path(config)
    except ConfigError as exc:
        for line in exc.lines:
            typer.echo(line, err=True)
        raise typer.Exit(1) from exc
    # Every mistake at once, not one per try: the place, the keys, the credentials.
    problems = [] if (inside := inside_repository(path)) is None else [inside]
    try:
        loaded = load_config(path)
    except ConfigError as exc:
        problems += exc.lines
        loaded = None
    if loaded is not None and (credentials := check_credentials(loaded, os.environ, path.parent)):
        problems.append(f"{path}: {credentials}")
    if problems or loaded is None:
        for problem in problems:
            typer.echo(problem, err=True)
        raise typer.Exit(1)
    data = loaded.model_dump(mode="json")
    data["home"] = str(conveyor_home(loaded))
    account = data["account"]
    if account.get("token_env"):
        account["token_env"] = f"{account['token_env']} (value not shown)"
    typer.echo(json.dumps(data, indent=2, sort_keys=True))
