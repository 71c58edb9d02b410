"""The bwrap argv of a plan: namespaces, a read-only root, hidden paths, binds back in.

Mounts are applied in order of depth, so a writable or readable path inside a hidden
one is bound back after the hidden folder is covered; each hidden folder's tmpfs is
then made read-only, so nothing can be created beside what was bound back (binds
inside it stay writable). A hidden file is covered with `/dev/null`, bound without
device access: it cannot be opened. Hidden paths that do not exist need no cover.
Paths inside `/tmp` are laid after the plan's own tmp is bound there (their mount
points are made in that folder). A readable path inside a writable one, with no hidden
folder between them, needs no bind: the writable bind already shows it, and a read-only
bind there would take writes away from what the plan made writable.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from conveyor.sandbox.plan import BoxPlan

NAMESPACES = (
    "--unshare-user",
    "--disable-userns",  # no nested user namespace: its capabilities could unmount a cover
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
)
# Run as root, bwrap would keep every capability inside its user namespace.
BASE = (
    "--cap-drop",
    "ALL",
    "--die-with-parent",
    "--new-session",
    "--ro-bind",
    "/",
    "/",
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--tmpfs",
    "/dev/shm",  # noqa: S108 - the box's own, a fresh tmpfs
)
TMP = Path("/tmp")  # noqa: S108 - the box's own /tmp is the plan's private folder


@dataclass(frozen=True)
class _Mount:
    """One mount: its option, target and source (the same path for binds)."""

    option: str
    path: Path
    rank: int  # at one path: cover first, then bind back

    def args(self) -> list[str]:
        if self.option == "--tmpfs":
            return ["--tmpfs", str(self.path)]
        if self.option == "--null":
            return ["--ro-bind", "/dev/null", str(self.path)]
        if self.option == "--tmp":
            return ["--bind", str(self.path), str(TMP)]
        return [self.option, str(self.path), str(self.path)]

    @property
    def depth(self) -> int:
        return 1 if self.option == "--tmp" else len(self.path.parts)


def _absolute(path: Path) -> Path:
    return path.resolve()


def _covers(plan: BoxPlan) -> list[_Mount]:
    out = []
    for raw in plan.hidden:
        path = _absolute(raw)
        if path == Path("/"):
            continue
        if path.is_dir():
            out.append(_Mount("--tmpfs", path, 0))
        elif path.exists():
            out.append(_Mount("--null", path, 0))
    return out


def _shown_writable(path: Path, writable: list[Path], covers: list[Path]) -> bool:
    """Whether a writable bind already shows `path`: one holds it, with no cover strictly
    inside that bind over `path`."""
    return any(
        path.is_relative_to(w)
        and not any(c != w and c.is_relative_to(w) and path.is_relative_to(c) for c in covers)
        for w in writable
    )


def mounts(plan: BoxPlan) -> list[_Mount]:
    """Every mount after the read-only root, in the order bwrap applies them."""
    covers = _covers(plan)
    writable = [_absolute(p) for p in (plan.home, *plan.writable)]
    found = [*covers, _Mount("--tmp", _absolute(plan.tmp), 1)]
    found += [_Mount("--bind", p, 2) for p in writable]
    readable = [_absolute(p) for p in plan.readable]
    hidden = [c.path for c in covers]
    found += [
        _Mount("--ro-bind-try", p, 3) for p in readable if not _shown_writable(p, writable, hidden)
    ]
    found += [_Mount("--bind", _absolute(p), 2) for p in plan.sockets]
    unique = {(m.option, m.path): m for m in found}
    return sorted(unique.values(), key=lambda m: (m.depth, m.rank))


def bwrap_argv(binary: Path, plan: BoxPlan, argv: list[str]) -> list[str]:
    """The argv that runs `argv` boxed as `plan` says."""
    out = [str(binary), *NAMESPACES]
    if plan.network != "shared":
        out.append("--unshare-net")
    out += BASE
    laid = mounts(plan)
    for mount in laid:
        out += mount.args()
    bound = {m.path for m in laid if m.option != "--tmpfs"}
    for m in laid:
        if m.option == "--tmpfs" and m.path not in bound:
            out += ["--remount-ro", str(m.path)]
    out += ["--chdir", str(_absolute(plan.cwd))]
    out += ["--setenv", "HOME", str(plan.home), "--setenv", "TMPDIR", str(TMP)]
    return [*out, "--", *argv]
