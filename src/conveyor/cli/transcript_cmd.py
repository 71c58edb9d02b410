"""`conveyor transcript --issue N [--stage S]`: what an issue's agent sessions said and did.

Read from the job folders under the repository's home (no forge call), drawn like the
CLIs draw their own sessions, every line escaped (`cli/screen.say_lines`): the stream
holds what the model and the tools wrote, which an issue's text can steer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from conveyor.cli.config_load import load_or_exit, repo_home
from conveyor.cli.screen import say_lines
from conveyor.core.transcript_text import session_lines

EXIT_USAGE = 2
EXIT_NONE = 1


def transcript(
    issue: Annotated[int, typer.Option("--issue", help="The issue's number.", min=1)],
    stage: Annotated[
        str | None, typer.Option("--stage", help="Only this stage's sessions (e.g. implement).")
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option("--config", envvar="CONVEYOR_CONFIG", help="The repository's config file."),
    ] = None,
) -> None:
    """Print the issue's session transcripts: messages, tool calls, results, cost."""
    from conveyor.job.transcripts import issue_transcripts

    loaded = load_or_exit(config, report=lambda lines: say_lines(lines, err=True))
    found = issue_transcripts(repo_home(loaded), issue, stage)
    if found.unreadable:
        say_lines([f"skipped (unreadable): {line}" for line in found.unreadable], err=True)
    if not found.sessions:
        which = f" at stage {stage}" if stage else ""
        say_lines([f"issue #{issue} has no agent sessions{which} under {repo_home(loaded)}"])
        raise typer.Exit(EXIT_NONE)
    lines: list[str] = []
    for session in found.sessions:
        lines.extend([*session_lines(session), ""])
    say_lines(lines[:-1])
