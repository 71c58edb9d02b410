"""`conveyor demo`: issues to merged pull requests on the embedded forge, with a scripted agent."""

from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
import threading
from pathlib import Path
from typing import Annotated

import typer

from conveyor.cli.box_gate import UNCONFINED
from conveyor.cli.demo.config import REAL_AGENTS
from conveyor.cli.screen import say, say_lines

EXIT_MISSED = 1
EXIT_USAGE = 2


def _wait_for_interrupt() -> None:
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    stop.wait()


def _data_dir(data: Path | None) -> Path:
    """A fresh folder for the forge's data: `data` when empty or missing, else a usage error."""
    if data is None:
        return Path(tempfile.mkdtemp(prefix="conveyor-demo-"))
    if data.exists() and any(data.iterdir()):
        typer.echo(f"--data {data}: the folder is not empty; the demo needs a fresh one", err=True)
        raise typer.Exit(EXIT_USAGE)
    data.mkdir(parents=True, exist_ok=True)
    return data


def _check_agent(agent: str, *, fake_model: bool) -> None:
    if agent == "scripted":
        if fake_model:
            typer.echo("--fake-model: name the real CLI to run with --agent", err=True)
            raise typer.Exit(EXIT_USAGE)
        return
    if agent not in REAL_AGENTS:
        typer.echo(f"--agent {agent}: expected one of {', '.join(REAL_AGENTS)}", err=True)
        raise typer.Exit(EXIT_USAGE)
    named = os.environ.get(f"CONVEYOR_{agent.upper()}_EXECUTABLE")
    if shutil.which(named or agent) is None:
        typer.echo(
            f"--agent {agent}: the `{agent}` CLI is not on PATH. Install it and sign it in"
            f" (its own credentials), then run `conveyor doctor` to see what else is missing.",
            err=True,
        )
        raise typer.Exit(EXIT_USAGE)


SANDBOX_MODES = ("auto", "bwrap", "none")


def _check_sandbox(mode: str) -> None:
    """Refuse to start (one line, exit 2) when the box the demo would use cannot be built."""
    from conveyor.sandbox import BoxUnavailable, select_box

    if mode not in SANDBOX_MODES:
        typer.echo(f"--sandbox {mode}: expected one of {', '.join(SANDBOX_MODES)}", err=True)
        raise typer.Exit(EXIT_USAGE)
    try:
        select_box(mode)  # type: ignore[arg-type]  # checked just above
    except BoxUnavailable as exc:
        said = str(exc).replace(
            'set `mode = "none"` under [sandbox] in the config', "pass --sandbox none"
        )
        typer.echo(f"conveyor demo: refusing to start: {said}", err=True)
        raise typer.Exit(EXIT_USAGE) from exc


def demo(
    data: Annotated[
        Path | None, typer.Option("--data", help="Keep the forge's data here (default: temp).")
    ] = None,
    no_serve: Annotated[
        bool, typer.Option("--no-serve", help="Exit after the table instead of serving the page.")
    ] = False,
    agent: Annotated[
        str, typer.Option("--agent", help=f"{', '.join(REAL_AGENTS)} instead of the script.")
    ] = "scripted",
    fake_model: Annotated[
        bool,
        typer.Option(
            "--fake-model",
            help="With --agent: the real CLI against a loopback fake model (offline, no key).",
        ),
    ] = False,
    sandbox: Annotated[
        str,
        typer.Option(
            "--sandbox",
            help="auto (bwrap, refusing where it cannot be built), bwrap, or none (unconfined).",
        ),
    ] = "auto",
) -> None:
    """Run the pipeline on a sample repository's issues, then show what became of each.

    With the scripted agent (the default) the outcome is the same every run and the exit
    status says whether each issue reached it. `--agent NAME` (a real CLI) runs the
    same issues with that real CLI (installed and signed in; a $5 daily money budget);
    its outcomes are reported, not compared. `--fake-model` runs that real CLI against a
    loopback fake model playing the script (offline, no key), outcomes compared. The
    exit status is 1 when no issue moved at all (a CLI not signed in, say).
    """
    from rich.console import Console

    from conveyor.cli.demo.ending import Verdict, next_steps, page_line, verdict_lines
    from conveyor.cli.demo.issues import expected_outcomes
    from conveyor.cli.demo.run import DemoFiles, run_pipeline, stalled_reason
    from conveyor.cli.demo.table import (
        build_rows,
        critical_path,
        misses,
        moved,
        stacking_lines,
        table_lines,
    )
    from conveyor.emulator.app.server import ForgeServer
    from conveyor.job.entry import shown_command
    from conveyor.job.transcripts import home_transcripts
    from conveyor.orchestrator.shell.pipeline_files import PipelineFiles

    _check_agent(agent, fake_model=fake_model)
    _check_sandbox(sandbox)
    data_dir = _data_dir(data)
    console = Console()
    files = DemoFiles(data_dir / "conveyor")
    reader = home_transcripts(files.home)
    pipeline = PipelineFiles(files.home)
    with ForgeServer(data_dir, pipeline=pipeline, transcripts=reader) as server:
        where = f"forge page: {server.url}/  (data in {data_dir})"
        typer.echo(where if not no_serve else f"forge data in {data_dir}")
        result = run_pipeline(
            server, files, agent=agent, console=console, fake_model=fake_model, sandbox=sandbox
        )
        rows = build_rows(result.facts)
        typer.echo("")
        say_lines(table_lines(rows))
        typer.echo("")
        typer.echo(f"wall time: {result.seconds:.0f}s")
        say(f"critical path: {critical_path(result.facts)}")
        for line in stacking_lines(result.facts):
            say(f"stacked: {line}")
        compared = agent == "scripted" or fake_model
        missed = misses(rows, expected_outcomes()) if compared else []
        stuck = not moved(result.facts)
        reason = (stalled_reason(files.home) or "see the log") if stuck else None
        verdict = Verdict(len(rows), compared, missed, result.interrupted, reason)
        serving = not no_serve and sys.stdin.isatty() and sys.stdout.isatty()
        say_lines(verdict_lines(verdict))
        if sandbox == "none":
            say(UNCONFINED)
        steps = next_steps(shown_command(), data_dir, files.config)
        for line in (*page_line(server.url, serving=serving), *steps):
            typer.echo(line)
        if serving:
            typer.echo("serving; Ctrl-C to stop")
            _wait_for_interrupt()
    if missed or stuck or result.interrupted:
        raise typer.Exit(EXIT_MISSED)
