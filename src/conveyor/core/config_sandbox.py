"""The `[sandbox]` section: whether sessions and commands run boxed, and what they may reach."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import field_validator

from conveyor.core.config_terms import Strict

# A host name, optionally with a port, or `*.` and a domain for its subdomains.
HOST = re.compile(
    r"^(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*(:[0-9]{1,5})?$"
)
WHOLE = ("/", "~", "~/")


class Sandbox(Strict):
    """How boxed sessions and commands are (`conveyor.sandbox`).

    `mode`: `auto` boxes them with bubblewrap when a box can be built here and
    refuses to start otherwise; `bwrap` asks for bubblewrap outright; `none` runs
    them unconfined (said by `doctor`, `status` and the demo). `allow_hosts`: the
    hosts a session may reach besides its model API's. `setup_network`: the package
    registries the setup command may reach (none: setup runs with no network either).
    `readable`: paths given back read-only besides the tools the box finds itself;
    `caches`: folders every command and session may write, kept across jobs (a tool's
    download or build cache). Both absolute or under `~/` (the owner's home).
    """

    mode: Literal["auto", "bwrap", "none"] = "auto"
    allow_hosts: tuple[str, ...] = ()
    setup_network: tuple[str, ...] | None = None
    readable: tuple[str, ...] = ()
    caches: tuple[str, ...] = ()

    @field_validator("allow_hosts", "setup_network")
    @classmethod
    def _hosts(cls, value: tuple[str, ...] | None) -> tuple[str, ...] | None:
        for host in value or ():
            if not HOST.match(host):
                msg = f"expected host names like 'pypi.org' or '*.npmjs.org', got {host!r}"
                raise ValueError(msg)
        return value

    @field_validator("readable", "caches")
    @classmethod
    def _paths(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for path in value:
            if not path.startswith(("/", "~/")):
                msg = f"expected an absolute path or one under '~/', got {path!r}"
                raise ValueError(msg)
            if path.rstrip("/") in ("", "~") or path in WHOLE:
                msg = f"{path!r} is the whole root or home: name the folders the tools need"
                raise ValueError(msg)
        return value
