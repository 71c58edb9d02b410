"""What a boxed process sees: the paths it may write, read and must not see, its network."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

# "none": only a loopback of its own; "shared": the host's network (setup reaching the
# registries until the allowlisting proxy routes it).
# "proxy": its own loopback joined to Conveyor's allowlisting proxy (`sandbox/proxy.py`).
Network = Literal["none", "shared", "proxy"]
BoxMode = Literal["bwrap", "none"]


@dataclass(frozen=True)
class BoxPlan:
    """One boxed process's view of the machine.

    The root filesystem is read-only; `hidden` paths (Conveyor's home, its config
    folder, token files, the user's real home) are not there at all (an empty
    read-only folder, or a file that cannot be opened); `writable` paths (the checkout with its
    `.git`, the session or job folder) and `readable` paths are bound back in at the
    same place, even inside a hidden one. `home` is bound writable and is `$HOME`;
    `tmp` is bound at `/tmp` and is `$TMPDIR`. `sockets` are unix sockets bound in
    (the job's control socket, the MCP socket). `cwd` is where the process starts.
    """

    cwd: Path
    home: Path
    tmp: Path
    writable: tuple[Path, ...] = ()
    readable: tuple[Path, ...] = ()
    hidden: tuple[Path, ...] = ()
    sockets: tuple[Path, ...] = ()
    network: Network = "none"

    def with_writable(self, *paths: Path) -> BoxPlan:
        """The same plan with `paths` writable too."""
        return replace(self, writable=(*self.writable, *paths))

    def with_readable(self, *paths: Path) -> BoxPlan:
        """The same plan with `paths` readable too."""
        return replace(self, readable=(*self.readable, *paths))
