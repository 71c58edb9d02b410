"""How a printed command names the config: `--config PATH`, or nothing for the user's own.

`~/.config/conveyor/conveyor.toml` is the one config every command finds by itself from any
folder (`cli/config_find.py`), so a hint for it needs no `--config`; any other file is
named, quoted for a shell. Pure: the caller passes the home folder.
"""

from __future__ import annotations

import shlex
from pathlib import PurePath

USER_CONFIG = PurePath(".config") / "conveyor" / "conveyor.toml"
SHOWN_USER_CONFIG = "~/.config/conveyor/conveyor.toml"


def config_flag(path: PurePath | str, home: PurePath | str) -> str:
    """` --config PATH`, or "" when `path` (absolute) is the user's own config."""
    if PurePath(path) == PurePath(home) / USER_CONFIG:
        return ""
    return f" --config {shlex.quote(str(path))}"
