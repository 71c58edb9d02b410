"""Which config file a command reads when none is named, and how printed hints name it.

The order, first found wins: `--config PATH`, then `$CONVEYOR_CONFIG`, then `./conveyor.toml`,
then `~/.config/conveyor/conveyor.toml`. A name given outright beats a file found lying
about (the container and the systemd unit set the variable; a stray `./conveyor.toml` in
their working folder must not replace it). A `./conveyor.toml` inside a git work tree is
refused rather than read: agents edit that tree, and must not edit the rules that judge
them. Hints a command prints leave out `--config` only for that last file
(`core/config_hint.py`), the one found the same from any folder.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from conveyor.cli.config_place import repository_around
from conveyor.core.config_hint import SHOWN_USER_CONFIG as SHOWN_USER
from conveyor.core.config_hint import USER_CONFIG

LOCAL = "conveyor.toml"


class NoConfig(Exception):
    """No config was named and none was found (or the one found may not be used)."""


def user_config(home: Path) -> Path:
    """`~/.config/conveyor/conveyor.toml` of `home`."""
    return home / USER_CONFIG


def find_config(
    named: Path | str | None, environ: Mapping[str, str], cwd: Path, home: Path
) -> Path:
    """The config file to read, by the order above; NoConfig saying where it looked."""
    if named:
        return Path(named)
    if environ.get("CONVEYOR_CONFIG"):
        return Path(environ["CONVEYOR_CONFIG"])
    local = cwd / LOCAL
    if local.is_file():
        inside = repository_around(local.resolve())
        if inside is not None:
            msg = (
                f"./{LOCAL}: found inside the git repository {inside}; agents could change the"
                f" rules that judge their work: move it outside any repository ({SHOWN_USER})"
                " or pass --config PATH"
            )
            raise NoConfig(msg)
        return Path(LOCAL)
    found = user_config(home)
    if found.is_file():
        return found
    msg = (
        f"no configuration: pass --config PATH, set CONVEYOR_CONFIG, or write ./{LOCAL} or"
        f" {SHOWN_USER} (`conveyor init` writes the latter)"
    )
    raise NoConfig(msg)
