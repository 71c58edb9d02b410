"""A plan drawn for a person: what a boxed process can write, read and not see, and its network."""

from __future__ import annotations

from typing import TypedDict

from conveyor.sandbox.box import Box
from conveyor.sandbox.bwrap import TMP, mounts
from conveyor.sandbox.plan import BoxPlan

_ACCESS = {"--tmpfs": "hidden", "--null": "hidden", "--tmp": "tmp", "--bind": "rw"}


class Drawn(TypedDict):
    """`--print-boundary`'s sandbox entry."""

    mode: str
    root: str
    mounts: list[dict[str, str]]
    network: str
    pid_namespace: str
    home: str
    cwd: str


def describe(box: Box, plan: BoxPlan) -> Drawn:
    """What `box` enforces for `plan`, drawn from the same mounts `Box.wrap` lays."""
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
    drawn = []
    for mount in mounts(plan):
        access = _ACCESS.get(mount.option, "ro")
        path = str(TMP) if access == "tmp" else str(mount.path)
        entry = {"path": path, "access": "rw" if access == "tmp" else access}
        if access == "tmp":
            entry["from"] = str(mount.path)
        drawn.append(entry)
    network = {
        "none": "own loopback only",
        "proxy": "own loopback, out only through the allowlisting proxy",
        "shared": "host network",
    }[plan.network]
    return Drawn(
        mode="bwrap",
        root="read-only",
        mounts=drawn,
        network=network,
        pid_namespace="own (no other process visible or signalable)",
        home=str(plan.home),
        cwd=str(plan.cwd),
    )
