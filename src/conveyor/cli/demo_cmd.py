"""`conveyor demo`: the embedded forge with the sample repository and its issues.

For now it sets the stage only (forge, repository, people, issues) and
serves the forge's page; the pipeline run is added by the demo issue.
"""

from __future__ import annotations

import signal
import sys
import tempfile
import threading
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from conveyor.testing.emulator import ForgeServer

REPO = "demo/inventory"
ACCOUNT = "conveyor-bot"
TRUSTED = "alice"
VISITOR = "mallory"


@dataclass(frozen=True)
class DemoIssue:
    """An issue the demo opens, and who opens it."""

    author: str
    title: str
    body: str


ISSUES = (
    DemoIssue(TRUSTED, "Add a low-stock report [clean]", "List items with fewer than N units."),
    DemoIssue(TRUSTED, "remove() accepts negative quantities [bugfix]", "`remove('x', -1)` adds."),
    DemoIssue(VISITOR, "Please add a CSV export", "Visitors' issues are never touched."),
)


def sample_template() -> Path:
    """The sample repository shipped as package data."""
    return Path(str(resources.files("conveyor") / "sample" / "template"))


def set_stage(server: ForgeServer) -> list[str]:
    """Create people, the repository and the issues; returns one line per issue."""
    from conveyor.forge.github import token_forge

    server.add_user(ACCOUNT)
    tokens = {TRUSTED: server.add_user(TRUSTED), VISITOR: server.add_user(VISITOR)}
    server.create_repo(REPO, sample_template(), ci="python -m pytest")
    server.add_collaborator(REPO, ACCOUNT)
    server.add_collaborator(REPO, TRUSTED)
    lines = []
    for issue in ISSUES:
        forge = token_forge(REPO, tokens[issue.author], base_url=server.url)
        created = forge.create_issue(issue.title, issue.body)
        lines.append(f"#{created.number} by {issue.author}: {created.title}")
    return lines


def _wait_for_interrupt() -> None:
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    stop.wait()


def demo(
    data: Annotated[
        Path | None, typer.Option("--data", help="Keep the forge's data here (default: temp).")
    ] = None,
    no_serve: Annotated[
        bool, typer.Option("--no-serve", help="Exit after setting up instead of serving.")
    ] = False,
) -> None:
    """Start the embedded forge with the sample repository and issues, and serve its page."""
    from conveyor.testing.emulator import ForgeServer

    data_dir = data or Path(tempfile.mkdtemp(prefix="conveyor-demo-"))
    data_dir.mkdir(parents=True, exist_ok=True)
    with ForgeServer(data_dir) as server:
        for line in set_stage(server):
            typer.echo(line)
        typer.echo(f"forge data: {data_dir}")
        typer.echo(f"forge page: {server.url}/")
        if no_serve or not sys.stdin.isatty():
            return
        typer.echo("serving; Ctrl-C to stop")
        _wait_for_interrupt()
