"""A plan drawn for a person: what a boxed process can write, read and not see, and its network."""

from __future__ import annotations

from pathlib import Path
from typing import TypedDict

from conveyor.sandbox.box import Box
from conveyor.sandbox.bwrap import TMP, mounts
from conveyor.sandbox.plan import BoxPlan

_ACCESS = {
    "--tmpfs": "hidden",
    "--null": "hidden",
    "--tmp": "tmp",
    "--bind": "rw",
    "--symlink": "link",
}


class Drawn(TypedDict):
    """`--print-boundary`'s sandbox entry."""

    mode: str
    root: str
    mounts: list[dict[str, str]]
    network: str
    pid_namespace: str
    home: str
    cwd: str


def _why(plan: BoxPlan) -> dict[Path, str]:
    return {g.path.resolve(): g.why for g in plan.given}


def describe(box: Box, plan: BoxPlan) -> Drawn:
    """What `box` enforces for `plan`, drawn from the same mounts `Box.wrap` lays: each mount
    with its access (and why, for what was given back), then each hidden path that needed
    no cover (`absent`: nothing bound holds it)."""
    if not box.confined:
        return Drawn(
            mode="none",
            root="read-write (unconfined)",
            mounts=[],
            network="host (unconfined)",
            pid_namespace="host (unconfined)",
            home=str(plan.home),
            cwd=str(plan.cwd),
        )
    why = _why(plan)
    drawn = []
    laid = mounts(plan)
    for mount in laid:
        access = _ACCESS.get(mount.option, "ro")
        path = str(TMP) if access == "tmp" else str(mount.path)
        entry = {"path": path, "access": "rw" if access == "tmp" else access}
        if access == "tmp":
            entry["from"] = str(mount.path)
        if access == "link":
            entry["to"] = mount.target
        if mount.path in why:
            entry["why"] = why[mount.path]
        drawn.append(entry)
    covered = {m.path for m in laid}
    for hidden in dict.fromkeys(p.resolve() for p in plan.hidden):
        if hidden not in covered:
            drawn.append({"path": str(hidden), "access": "hidden", "how": "absent"})
    network = {
        "none": "own loopback only",
        "proxy": "own loopback, out only through the allowlisting proxy",
        "shared": "host network",
    }[plan.network]
    return Drawn(
        mode="bwrap",
        root="empty and read-only: the system folders, then what the plan binds",
        mounts=drawn,
        network=network,
        pid_namespace="own (no other process visible or signalable)",
        home=str(plan.home),
        cwd=str(plan.cwd),
    )
