"""Why this machine may not build a box: the kernel's switches for unprivileged user namespaces."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

SYSCTL = Path("/proc/sys")


def _read(root: Path, name: str) -> str | None:
    try:
        return (root / name).read_text().strip()
    except OSError:
        return None


def userns_problems(root: Path = SYSCTL) -> list[str]:
    """What keeps an unprivileged user from creating user namespaces, each with its fix.

    `root` is `/proc/sys` (a test hands in a folder of its own). Reads only: Debian's
    `kernel.unprivileged_userns_clone`, `user.max_user_namespaces`, and Ubuntu 24.04's
    AppArmor restriction `kernel.apparmor_restrict_unprivileged_userns`.
    """
    found = []
    read: Callable[[str], str | None] = lambda name: _read(root, name)  # noqa: E731
    if read("kernel/unprivileged_userns_clone") == "0":
        found.append(
            "kernel.unprivileged_userns_clone is 0: "
            "`sudo sysctl -w kernel.unprivileged_userns_clone=1` (and in /etc/sysctl.d/ to keep it)"
        )
    if read("user/max_user_namespaces") == "0":
        found.append(
            "user.max_user_namespaces is 0: `sudo sysctl -w user.max_user_namespaces=15000`"
        )
    if read("kernel/apparmor_restrict_unprivileged_userns") == "1":
        found.append(
            "AppArmor restricts unprivileged user namespaces "
            "(kernel.apparmor_restrict_unprivileged_userns=1): give bwrap an AppArmor profile "
            "with `userns,` (/etc/apparmor.d/bwrap), or "
            "`sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`"
        )
    return found
