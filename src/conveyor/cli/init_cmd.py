"""`conveyor init`: write a starter configuration file, outside the repository it steers."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from conveyor.cli.config_load import ConfigError, parse_config
from conveyor.cli.config_place import inside_repository
from conveyor.cli.ecosystem_checks import starter_sections
from conveyor.core.backends import NAMES
from conveyor.core.config_hint import USER_CONFIG, config_flag

EXIT_USAGE = 2
STARTER = """\
# Conveyor's configuration for {repo}. Keep this file OUTSIDE the repository:
# agents edit the repository, and must not be able to change the rules that judge them.
repo = "{repo}"
base = "{base}"
# Required: only these people's issues and comments steer the pipeline.
allowed_users = [{users}]

[forge]
kind = "{kind}"                      # "github", or "local" for the embedded forge
api_url = "{api_url}"

[account]
login = "{login}"                    # the account the token acts as (a bot user)
token_env = "CONVEYOR_TOKEN"          # or token_file = "token" (beside this file)

[commands]
{commands}
[agents.default]
agent = "claude"                      # {agents}
model = "sonnet"

# Which issues are taken as new work. Only allowed_users' issues are ever taken; this
# narrows them. Opt in: an issue is taken once it carries the label `conveyor`
# (`conveyor doctor --fix` creates it). To take every trusted issue, set labels = [].
[intake]
labels = ["conveyor"]
# Or only issues assigned to a login, or in a milestone (its title):
# assignee = "{login}"
# milestone = "v1.0"
# New issues labelled `priority` go first, then the smallest (labels size/xs to size/xl).
# An issue sized above max_size is triaged to be split first; new size/l (or larger)
# issues wait while max_large_in_flight of them are in flight:
# max_size = "l"
# max_large_in_flight = 1

# Money, in US dollars: new starts pause once today's sessions cost this much.
# Raise it as you come to trust the pipeline; remove the line for no daily cap.
[money]
per_day = 10.0
# per_issue = 3.0   # stop an issue once its sessions (since its last start) cost this
{paths}"""
PYTHON_COMMANDS = """\
# setup = "pip install -e ."
test = "pytest -q"
# lint = "ruff check ."
# typecheck = "mypy ."
"""


def init(
    path: Annotated[
        Path | None,
        typer.Argument(
            help="Where to write the config (outside the repository); default"
            " ~/.config/conveyor/conveyor.toml, which every command finds by itself.",
            show_default=False,
        ),
    ] = None,
    *,
    repo: Annotated[str, typer.Option("--repo", help="OWNER/NAME of the repository.")] = (
        "octo/widgets"
    ),
    user: Annotated[
        list[str] | None,
        typer.Option("--user", help="An allowed user (required; repeat for more)."),
    ] = None,
    login: Annotated[str, typer.Option("--login", help="The pipeline account's login.")] = (
        "widgets-conveyor"
    ),
    base: Annotated[str, typer.Option("--base", help="The base branch.")] = "main",
    local: Annotated[
        bool, typer.Option("--local", help="Point at the embedded forge on 127.0.0.1:8080.")
    ] = False,
    checkout: Annotated[
        Path | None,
        typer.Option(
            "--checkout",
            help="A checkout of the repository: its ecosystems (package.json, go.mod, "
            "Cargo.toml, CMakeLists.txt…) choose the commands and paths.tests written.",
        ),
    ] = None,
) -> None:
    """Write a starter config; then edit it and run `conveyor doctor --fix`."""
    path = Path.home() / USER_CONFIG if path is None else path
    target = path.expanduser().resolve()
    if target.exists():
        typer.echo(f"{path}: already exists; pass another path (nothing was changed)", err=True)
        raise typer.Exit(1)
    inside = inside_repository(target, path)
    if inside is not None:
        typer.echo(inside, err=True)
        raise typer.Exit(1)
    if not user:
        typer.echo(
            "--user: name at least one allowed user (repeat --user for more): only their"
            " issues and comments steer the pipeline (nothing was written)",
            err=True,
        )
        raise typer.Exit(EXIT_USAGE)
    users = user
    commands, tests = PYTHON_COMMANDS, ""
    if checkout is not None:
        detected, tests = starter_sections(checkout.expanduser())
        if not detected:
            typer.echo(f"--checkout {checkout}: no ecosystem's files found there", err=True)
            raise typer.Exit(EXIT_USAGE)
        commands = detected
    text = STARTER.format(
        commands=commands,
        paths=f"\n[paths]\n{tests}" if tests else "",
        repo=repo,
        base=base,
        users=", ".join(f'"{u}"' for u in users),
        kind="local" if local else "github",
        api_url="http://127.0.0.1:8080" if local else "https://api.github.com",
        login=login,
        agents=" | ".join(NAMES),
    )
    try:
        parse_config(text, str(path))
    except ConfigError as exc:
        typer.echo(exc.lines[0], err=True)
        raise typer.Exit(1) from exc
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        typer.echo(f"{path}: cannot write: {exc.strerror}", err=True)
        raise typer.Exit(1) from exc
    named = config_flag(target, Path.home().resolve())
    typer.echo(f"wrote {target}")
    typer.echo("next: check [account], [commands] and [intake] in it, then")
    typer.echo(f"  conveyor config check{named}")
    typer.echo(f"  conveyor doctor{named} --fix")
    typer.echo(f"  conveyor run{named} --dry-run   # what it would start, changing nothing")
    typer.echo(f"  conveyor run{named}")
