"""`conveyor config check`: print the resolved configuration, secrets redacted, or the errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from conveyor.cli.config_load import conveyor_home, load_or_exit

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
    redacted) or every mistake, each at its line (exit 2, as for every command)."""
    named = load_or_exit(config, place=True, credentials=True)  # every mistake at once
    data = named.config.model_dump(mode="json")
    data["home"] = str(conveyor_home(named))
    account = data["account"]
    if account.get("token_env"):
        account["token_env"] = f"{account['token_env']} (value not shown)"
    typer.echo(json.dumps(data, indent=2, sort_keys=True))
