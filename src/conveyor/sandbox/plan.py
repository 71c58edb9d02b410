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
class Given:
    """A path given back into the box read-only, and why (what `--print-boundary` says)."""

    path: Path
    why: str


@dataclass(frozen=True)
class BoxPlan:
    """One boxed process's view of the machine.

    The box starts empty: only the system folders a toolchain reads (`sandbox/system.py`:
    `/usr`, `/bin`, `/lib*`, `/etc` without its secrets, `/opt`, …) are there, read-only,
    then what the plan binds: `writable` paths (the checkout with its `.git`, the session
    or job folder) and `readable` paths at the same place, `home` writable as `$HOME`,
    `tmp` at `/tmp` as `$TMPDIR`, and `sockets` (the job's control socket, the MCP and
    proxy sockets' folders). No homes, no `/run`, no other host socket. `hidden` paths
    (Conveyor's home, its config folder, token files, the owner's home, the sockets the
    environment names) are not bound at all; one that lies inside something bound is
    covered there (an empty read-only folder, or a file that cannot be opened).
    `given` says why each readable path was given back. `cwd` is where the process starts.
    """

    cwd: Path
    home: Path
    tmp: Path
    writable: tuple[Path, ...] = ()
    readable: tuple[Path, ...] = ()
    hidden: tuple[Path, ...] = ()
    sockets: tuple[Path, ...] = ()
    network: Network = "none"
    given: tuple[Given, ...] = ()

    def with_writable(self, *paths: Path) -> BoxPlan:
        """The same plan with `paths` writable too."""
        return replace(self, writable=(*self.writable, *paths))

    def with_readable(self, *paths: Path) -> BoxPlan:
        """The same plan with `paths` readable too."""
        return replace(self, readable=(*self.readable, *paths))

    def with_given(self, *given: Given) -> BoxPlan:
        """The same plan with each of `given` readable too, its reason kept."""
        plan = self.with_readable(*(g.path for g in given))
        return replace(plan, given=(*self.given, *given))
