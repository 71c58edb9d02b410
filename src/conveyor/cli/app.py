"""The typer application: one sub-command group per concern."""

from __future__ import annotations

from typing import Annotated

import typer

from conveyor.cli import config_cmd, demo_cmd, forge_cmd
from conveyor.cli.cost_cmd import cost
from conveyor.cli.doctor_cmd import doctor
from conveyor.cli.drive_cmd import drive_cmd
from conveyor.cli.init_cmd import init
from conveyor.cli.job_cmd import job
from conveyor.cli.live_cmd import live
from conveyor.cli.resume_cmd import resume
from conveyor.cli.run_cmd import run, tick
from conveyor.cli.status_cmd import status
from conveyor.cli.transcript_cmd import transcript
from conveyor.cli.worker_cmd import worker

app = typer.Typer(
    name="conveyor",
    help="Take trusted issues to merged pull requests with AI coding agents.",
    no_args_is_help=True,
    add_completion=True,  # --install-completion / --show-completion for bash, zsh, fish
    pretty_exceptions_enable=False,
)


def _version(shown: bool) -> None:
    if shown:
        from importlib.metadata import version

        typer.echo(f"conveyor {version('conveyor')}")
        raise typer.Exit


@app.callback()
def _root(
    _version_flag: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    """Take trusted issues to merged pull requests with AI coding agents."""


app.add_typer(config_cmd.app, name="config")
app.add_typer(forge_cmd.app, name="forge")
app.command("demo")(demo_cmd.demo)
app.command("init")(init)
app.command("job")(job)
app.command("drive")(drive_cmd)
app.command("status")(status)
app.command("cost")(cost)
app.command("run")(run)
app.command("tick")(tick)
app.command("doctor")(doctor)
app.command("resume")(resume)
app.command("transcript")(transcript)
app.command("live")(live)
app.command("worker")(worker)
