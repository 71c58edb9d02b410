"""The proxy tests' box: the real one, network "proxy", its only way out the bridge."""

from __future__ import annotations

import os
from pathlib import Path

from conveyor.sandbox import Box, BoxPlan
from conveyor.sandbox.proxy import NetworkProxy, bridge_argv, bridge_file
from conveyor.sandbox.tools import tool_paths


def boxed(box: Box, proxy: NetworkProxy, root: Path, command: list[str]) -> list[str]:
    """`command` in a box whose only way out is the proxy, behind the bridge as a session's
    runner starts it (`bridge_argv`: the allowlist's loopback endpoints forwarded)."""
    for name in ("home", "tmp"):
        (root / name).mkdir(parents=True, exist_ok=True)
    plan = BoxPlan(
        cwd=root,
        home=root / "home",
        tmp=root / "tmp",
        readable=(*tool_paths(os.environ, ()), Path(bridge_file()).parent),
        sockets=(proxy.folder,),
        network="proxy",
    )
    return box.wrap(bridge_argv(proxy, command), plan)
