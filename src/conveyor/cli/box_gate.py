"""The CLI's side of the sandbox: refusing to start without a box, and saying when unconfined."""

from __future__ import annotations

import typer

from conveyor.core.config import Config
from conveyor.sandbox import Box, BoxUnavailable, select_box
from conveyor.sandbox.host import userns_problems

EXIT_NO_BOX = 2
UNCONFINED = (
    'sandbox: none ([sandbox] mode = "none"): agent sessions and the repository\'s commands '
    "run unconfined, as the same user as Conveyor"
)


def require_box(config: Config) -> Box:
    """The box the config asks for; where none can be built, one line on stderr and exit 2."""
    try:
        return select_box(config.sandbox.mode)
    except BoxUnavailable as exc:
        typer.echo(f"conveyor: refusing to start: {exc}", err=True)
        raise typer.Exit(EXIT_NO_BOX) from exc


def sandbox_line(config: Config) -> str:
    """What confines sessions and commands under this config, in one line."""
    mode = config.sandbox.mode
    if mode == "none":
        return UNCONFINED
    return f"sandbox: {mode}: agent sessions and the repository's commands run in bwrap boxes"


def doctor_detail(config: Config) -> tuple[bool, str]:
    """The doctor's sandbox finding: whether the config's box can be built, and how to fix it."""
    if config.sandbox.mode == "none":
        return True, UNCONFINED
    try:
        box = select_box(config.sandbox.mode)
    except BoxUnavailable as exc:
        fixes = userns_problems()
        return False, "; ".join([str(exc), *fixes])
    return True, f"bwrap {box.binary} builds a box here (user, pid, mount, ipc, net namespaces)"
