"""What a session's box is built from: the sandbox mode, its hosts, what the job hides."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

SandboxMode = Literal["auto", "bwrap", "none"]


@dataclass(frozen=True)
class SessionSandbox:
    """The `[sandbox]` choices a session's runner needs.

    `allow_hosts` are reachable besides the backend's own model hosts
    (`sandbox/allowlist.py`), and so are the endpoints the job names (the session's
    `base_url`, the fake model's loopback port). `hidden` are the job's
    paths a session must not see (Conveyor's home, the config's folder, token files, host
    sockets); the runner also hides the owner's HOME and `CONVEYOR_HOME`. `readable` are
    given back read-only (the owner's tools, as the job's commands get them); `caches`
    are writable (`[sandbox] caches`).
    """

    mode: SandboxMode = "auto"
    allow_hosts: tuple[str, ...] = ()
    hidden: tuple[Path, ...] = ()
    readable: tuple[Path, ...] = ()
    caches: tuple[Path, ...] = ()
