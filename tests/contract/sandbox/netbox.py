"""The proxy tests' box: the real one, network "proxy", its only way out the bridge."""

from __future__ import annotations

import sys
from pathlib import Path

from conveyor.sandbox import Box, BoxPlan, bridge
from conveyor.sandbox.proxy import NetworkProxy


def boxed(
    box: Box, proxy: NetworkProxy, root: Path, command: list[str], forwards: list[str]
) -> list[str]:
    """`command` in a box whose only way out is the proxy, through the bridge."""
    for name in ("home", "tmp"):
        (root / name).mkdir(parents=True, exist_ok=True)
    plan = BoxPlan(
        cwd=root, home=root / "home", tmp=root / "tmp", sockets=(proxy.folder,), network="proxy"
    )
    relay = [sys.executable, "-I", "-S", str(Path(bridge.__file__)), "--socket"]
    relay.append(str(proxy.socket_path))
    for endpoint in forwards:
        relay += ["--forward", endpoint]
    return box.wrap([*relay, "--", *command], plan)
