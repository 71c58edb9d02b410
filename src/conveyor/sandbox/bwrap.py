"""The bwrap argv of a plan: namespaces, the system folders, binds, covers, an empty root.

The box's root is an empty tmpfs, made read-only once everything is laid. On it come the
system folders read-only (`sandbox/system.py`, with `/etc`'s secrets covered), a fresh
`/proc`, `/dev` and `/dev/shm`, then the plan's paths in order of depth, so a cover
inside a bind comes after the bind and a bind inside a cover after the cover; each
cover's tmpfs is then made read-only, so nothing can be created beside what was bound
back (binds inside it stay writable). A hidden file is covered with `/dev/null`, bound
without device access: it cannot be opened. A hidden path outside everything bound
needs no cover: it is not there (so a token file's path does not show in the box's
`/proc/self/mountinfo`). Paths inside `/tmp` are laid after the plan's own tmp is bound
there (their mount points are made in that folder). A readable path that a writable,
readable or system bind already shows, with no cover between, needs no bind of its own
(and a read-only bind inside a writable one would take writes away from it). Where a
bound path is named through a symlink (`/home` → `/var/home`, `~/.nix-profile`), the
symlink is laid too, so the path the environment names resolves inside as outside.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from conveyor.sandbox.plan import BoxPlan
from conveyor.sandbox.system import SystemPath, etc_secrets, in_system, system_paths

NAMESPACES = (
    "--unshare-user",
    "--disable-userns",  # no nested user namespace: its capabilities could unmount a cover
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
)
# Run as root, bwrap would keep every capability inside its user namespace.
BASE = ("--cap-drop", "ALL", "--die-with-parent", "--new-session")
DEVICES = ("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/dev/shm")  # noqa: S108 - the box's own
TMP = Path("/tmp")  # noqa: S108 - the box's own /tmp is the plan's private folder
ROOT = Path("/")


@dataclass(frozen=True)
class _Mount:
    """One mount: its option, target, and a symlink's text (`--symlink`)."""

    option: str
    path: Path
    rank: int  # at one depth: links, covers, the tmp, binds, then read-only binds
    target: str = ""

    def args(self) -> list[str]:
        if self.option == "--tmpfs":
            return ["--tmpfs", str(self.path)]
        if self.option == "--null":
            return ["--ro-bind", "/dev/null", str(self.path)]
        if self.option == "--tmp":
            return ["--bind", str(self.path), str(TMP)]
        if self.option == "--symlink":
            return ["--symlink", self.target, str(self.path)]
        return [self.option, str(self.path), str(self.path)]

    @property
    def depth(self) -> int:
        return 1 if self.option == "--tmp" else len(self.path.parts)


@functools.cache
def host_system() -> tuple[tuple[SystemPath, ...], tuple[Path, ...]]:
    """This host's system folders and `/etc`'s secrets (read once a process)."""
    return system_paths(), etc_secrets()


def plain(path: Path) -> Path:
    """`path` made absolute and normal (no `.` or `..`), its symlinks left as they are."""
    return Path(os.path.normpath(path.absolute()))


def _absolute(path: Path) -> Path:
    return path.resolve()


def _inside(path: Path, roots: Iterable[Path]) -> bool:
    return any(path.is_relative_to(r) for r in roots)


def _needs_cover(path: Path, bound: list[Path]) -> bool:
    """Whether a hidden path would show: it lies inside something bound, or in `/tmp` (the
    plan's own, writable) with something bound inside it (its mount points are made there)."""
    if path == ROOT:
        return False
    if _inside(path, bound):
        return True
    return path.is_relative_to(TMP) and any(b.is_relative_to(path) for b in bound)


def _covers(hidden: Iterable[Path], bound: list[Path]) -> list[_Mount]:
    """A cover over each hidden path that would show (else it is simply absent)."""
    out = []
    for raw in hidden:
        path = _absolute(raw)
        if not _needs_cover(path, bound):
            continue
        if path.is_dir():
            out.append(_Mount("--tmpfs", path, 1))
        elif path.exists():
            out.append(_Mount("--null", path, 1))
    return out


def _shown(path: Path, binds: list[Path], covers: list[Path]) -> bool:
    """Whether a bind already shows `path`: one holds it, with no cover strictly inside that
    bind over `path`."""
    return any(
        path.is_relative_to(b)
        and not any(c != b and c.is_relative_to(b) and path.is_relative_to(c) for c in covers)
        for b in binds
    )


def _links(paths: Iterable[Path], bound: list[Path]) -> Iterator[_Mount]:
    """The symlinks on the way to each of `paths` as named, outside what is bound and /tmp."""
    for named in paths:
        here = ROOT
        for part in plain(named).parts[1:]:
            step = here / part
            if not step.is_symlink():
                here = step
                continue
            if not _inside(step, [*bound, TMP]):
                yield _Mount("--symlink", step, 0, str(step.readlink()))
            here = step.resolve()


def mounts(plan: BoxPlan) -> list[_Mount]:
    """Every mount after the namespaces, in the order bwrap applies them."""
    system, secrets = host_system()
    found = [
        _Mount("--symlink", s.path, 0, s.target)
        if s.target is not None
        else _Mount("--ro-bind", s.path, 3)
        for s in system
    ]
    shown = [s.path for s in system if s.target is None]
    writable = [_absolute(p) for p in (plan.home, *plan.writable)]
    sockets = [_absolute(p) for p in plan.sockets]
    readable = list(dict.fromkeys(_absolute(p) for p in plan.readable))
    bound = [*shown, *writable, *sockets, *readable]
    covers = _covers([*secrets, *plan.hidden], bound)
    found += [*covers, _Mount("--tmp", _absolute(plan.tmp), 2)]
    found += [_Mount("--bind", p, 3) for p in (*writable, *sockets)]
    hidden = [c.path for c in covers]
    for path in readable:
        others = [*shown, *writable, *(r for r in readable if r != path)]
        if not _shown(path, others, hidden):
            found.append(_Mount("--ro-bind-try", path, 4))
    named = (plan.cwd, plan.home, *plan.writable, *plan.readable, *plan.sockets)
    found += _links(named, [*shown, *writable, *readable])
    unique = {(m.option, m.path): m for m in found}
    return sorted(unique.values(), key=lambda m: (m.depth, m.rank))


def bwrap_argv(binary: Path, plan: BoxPlan, argv: list[str]) -> list[str]:
    """The argv that runs `argv` boxed as `plan` says."""
    out = [str(binary), *NAMESPACES]
    if plan.network != "shared":
        out.append("--unshare-net")
    out += [*BASE, *DEVICES]
    laid = mounts(plan)
    for mount in laid:
        out += mount.args()
    bound = {m.path for m in laid if m.option != "--tmpfs"}
    for m in laid:
        if m.option == "--tmpfs" and m.path not in bound:
            out += ["--remount-ro", str(m.path)]
    out += ["--remount-ro", str(ROOT)]
    out += ["--chdir", str(_absolute(plan.cwd))]
    out += ["--setenv", "HOME", str(plan.home), "--setenv", "TMPDIR", str(TMP)]
    return [*out, "--", *argv]


__all__ = ["TMP", "bwrap_argv", "in_system", "mounts"]
