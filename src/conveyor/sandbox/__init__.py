"""The box every session and every command running the repository's code runs in (bubblewrap).

`BoxPlan` says what a boxed process sees (`plan.py`); `Box` turns a plan and an argv
into the bwrap argv, or runs the argv bare in mode none (`box.py`); `bwrap.py` builds
that argv from an empty root and the system folders (`system.py`); `tools.py` finds what
to give back for the owner's tools (`toolchains.py`, `resolve.py`), `sockets.py` the host
sockets to hide; `host.py` says why a box cannot be built here and how to fix it;
`describe.py` draws a plan for `--print-boundary`. A box with network "proxy" reaches only
its allowlist (`allowlist.py`) through `proxy.py`, outside, joined by `bridge.py` inside.
"""

from conveyor.sandbox.box import Box, BoxUnavailable, find_bwrap, select_box
from conveyor.sandbox.plan import BoxMode, BoxPlan, Network

__all__ = ["Box", "BoxMode", "BoxPlan", "BoxUnavailable", "Network", "find_bwrap", "select_box"]
