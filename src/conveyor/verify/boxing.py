"""Where a verify command runs: the job's box, opened for what that one command must write.

Every command sees the job's base plan (its private HOME and tmp, Conveyor's home, the
config and the token files hidden). On top of it a command may write the tree it runs
in, the checkout (a temporary worktree's git folder lives in the checkout's `.git`),
the JUnit reports' folder and what the caller names (the migrations' scratch
folder); it may read the shared set-up environments. Setup may also write the cache
folders the environment names and reaches the network when `setup_network` says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from conveyor.core.ecosystems import caches
from conveyor.sandbox import Box, BoxPlan, Network
from conveyor.sandbox.allowlist import Allowlist
from conveyor.sandbox.proxy import Blocked, NetworkProxy, bridge_argv, bridge_file

# The cache folders commands are given (`job.boundary.cache_vars`); setup fills them.
CACHE_VARS = ("XDG_CACHE_HOME", "PIP_CACHE_DIR", *(c.var for c in caches() if not c.own))
# Files the environment names that a command reads (the user's pip and uv configuration).
READ_VARS = ("PIP_CONFIG_FILE", "UV_CONFIG_FILE")


@dataclass(frozen=True)
class Boxing:
    """The job's box and base plan, and the network its setup gets."""

    box: Box
    plan: BoxPlan
    setup_network: Network = "none"
    # With setup_network "proxy": the hosts setup reaches through the allowlisting proxy.
    setup_hosts: tuple[str, ...] = ()
    # The owner's environment as outside the box (HOME, PATH): what a failure's hints read.
    owner: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Opening:
    """What one command may write and read beyond the base plan."""

    cwd: Path
    writable: tuple[Path, ...]
    readable: tuple[Path, ...] = ()
    setup: bool = False
    cwd_writable: bool = True  # false: the command sees its cwd read-only (teardown's run folder)


def command_plan(
    boxing: Boxing, opening: Opening, env: Mapping[str, str], *, create: bool = True
) -> BoxPlan:
    """The plan of one command: the base plan opened as `opening` says (its missing writable
    folders created, unless `create` is false: the boundary only draws it)."""
    writable = [*([opening.cwd] if opening.cwd_writable else []), *opening.writable]
    readable = [*([] if opening.cwd_writable else [opening.cwd]), *opening.readable]
    readable += _named(env, READ_VARS)
    if opening.setup:
        writable += _named(env, CACHE_VARS)
    else:
        readable += _named(env, CACHE_VARS)
    plan = replace(boxing.plan, cwd=opening.cwd)
    plan = plan.with_writable(*(_existing(writable) if create else writable))
    network = boxing.setup_network if opening.setup else "none"
    if network == "proxy":
        # The bridge in front runs from Conveyor's own package, which may lie in a hidden
        # folder (an editable install in the owner's home, a checkout under /tmp).
        readable.append(Path(bridge_file()).parent)
    plan = plan.with_readable(*readable)
    return replace(plan, network=network)


def wrapped(
    boxing: Boxing | None,
    opening: Opening,
    env: Mapping[str, str],
    argv: Sequence[str],
    proxy: NetworkProxy | None = None,
) -> list[str]:
    """`argv` as it runs: inside the box for `opening`, or bare without a box; with a
    `proxy` and network "proxy", behind the bridge to it."""
    if boxing is None or not boxing.box.confined:
        return list(argv)
    plan = command_plan(boxing, opening, env)
    if proxy is None or plan.network != "proxy":
        return boxing.box.wrap(list(argv), plan)
    plan = replace(plan, sockets=(*plan.sockets, proxy.folder))
    return boxing.box.wrap(bridge_argv(proxy, list(argv)), plan)


def setup_proxy(
    boxing: Boxing | None, opening: Opening, log: Path, on_blocked: Blocked | None = None
) -> NetworkProxy | None:
    """The allowlisting proxy a setup command reaches `setup_hosts` through, when it does
    (with none named, it reaches nothing, and each host it tried is told to `on_blocked`)."""
    if boxing is None or not boxing.box.confined or not opening.setup:
        return None
    if boxing.setup_network != "proxy":
        return None
    return NetworkProxy(Allowlist.of(boxing.setup_hosts), log, on_blocked)


def _named(env: Mapping[str, str], names: Sequence[str]) -> list[Path]:
    return [Path(env[n]) for n in names if env.get(n)]


def _existing(paths: Sequence[Path]) -> list[Path]:
    """The writable paths, made when missing (a cache folder before its first use)."""
    for path in paths:
        path.mkdir(parents=True, exist_ok=True)
    return list(paths)
