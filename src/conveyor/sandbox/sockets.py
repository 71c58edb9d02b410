"""The host sockets the environment names, which no box may reach.

A box shows no `/run` and no home, so these are not there anyway; they are also
hidden by name, so a folder given back that holds one (a PATH folder, a path
`[sandbox] readable` names) gets it covered, and nothing is given that holds one.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

RUN = (Path("/run"), Path("/var/run"))
# Variables that name a socket, or a folder of them, and how the path is written in each.
PLAIN = ("XDG_RUNTIME_DIR", "SSH_AUTH_SOCK", "WAYLAND_DISPLAY")
ADDRESSES = ("DBUS_SESSION_BUS_ADDRESS", "DBUS_SYSTEM_BUS_ADDRESS", "PULSE_SERVER", "DOCKER_HOST")


def _address_paths(value: str) -> list[str]:
    """The paths in a D-Bus address list (`unix:path=/x,guid=…;…`) or `unix:///x`."""
    found = []
    for address in value.split(";"):
        if address.startswith("unix://"):
            found.append(address.removeprefix("unix://"))
        for part in address.removeprefix("unix:").split(","):
            key, _, path = part.partition("=")
            if key == "path":
                found.append(path)
    return found


def named_sockets(environ: Mapping[str, str]) -> tuple[Path, ...]:
    """`/run`, the user's runtime folder and each socket the environment names."""
    found = [*RUN, Path(f"/run/user/{os.getuid()}")]
    found += [Path(environ[n]) for n in PLAIN if environ.get(n)]
    for name in ADDRESSES:
        found += [Path(p) for p in _address_paths(environ.get(name, ""))]
    gpg = environ.get("GPG_AGENT_INFO", "").split(":", 1)[0]
    if gpg:
        found.append(Path(gpg))
    return tuple(dict.fromkeys(p for p in found if p.is_absolute() and p != Path("/")))
