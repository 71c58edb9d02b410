"""The box a CI command runs in: the job's kind of plan, and the network its repository allows.

Bwrap when one can be built here, else none: the emulator is a test and demo forge, not
the pipeline. The plan writes only the run's checkout, HOME and tmp, hides the forge's
data and the owner's home, and gives back the owner's tools and what the command names
outside the checkout, as a job's box does. With a network (`ci_network.py`) the command
runs behind the allowlisting proxy's bridge, as a job's setup does.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from types import TracebackType

from conveyor.emulator.model.ci_network import NONE, REGISTRIES
from conveyor.sandbox import Box, BoxPlan, BoxUnavailable, select_box
from conveyor.sandbox.allowlist import Allowlist
from conveyor.sandbox.proxy import NetworkProxy, bridge_argv, bridge_file
from conveyor.sandbox.registries import setup_registries
from conveyor.sandbox.sockets import named_sockets
from conveyor.sandbox.tools import find_tools


def ci_box() -> Box:
    """The box CI commands run in: bwrap when one can be built here, else none.

    The emulator is a test and demo forge, not the pipeline: where no box can be built
    the orchestrator refuses to start (or runs with `mode = "none"` knowingly), so its CI
    runs unconfined there rather than failing every check.
    """
    try:
        return select_box("auto")
    except BoxUnavailable:
        return Box("none")


def ci_plan(root: Path, checkout: Path, hidden: tuple[Path, ...], command: str = "") -> BoxPlan:
    """A CI run's plan: it writes only its checkout, HOME and tmp under `root`, no network,
    and sees neither the forge's data nor the owner's home (`hidden`); the owner's tools
    and what `command` names outside the checkout are given back read-only, as in a job."""
    tmp = root / "tmp"
    tmp.mkdir(exist_ok=True)
    home = os.environ.get("HOME")
    strict = [p for p in hidden if home is None or p != Path(home)]
    tools = find_tools(os.environ, strict, commands=(command,), cwd=checkout)
    plan = BoxPlan(
        cwd=checkout,
        home=root / "home",
        tmp=tmp,
        writable=(checkout,),
        hidden=(*hidden, *named_sockets(os.environ)),
    )
    return plan.with_given(*tools.given)


def ci_hosts(
    network: str, command: str, checkout: Path, environ: Mapping[str, str]
) -> tuple[str, ...]:
    """The hosts a CI run may reach under `network` (`model/ci_network.py`)."""
    if network == NONE:
        return ()
    if network == REGISTRIES:
        return tuple(r.host for r in setup_registries(command, environ, checkout))
    return tuple(network.split(","))


class CiBox:
    """One CI run's argv, boxed, and the proxy its network goes through (closed on exit)."""

    def __init__(
        self,
        box: Box | None,
        *,
        root: Path,
        checkout: Path,
        hidden: tuple[Path, ...],
        command: str,
        network: str = NONE,
    ) -> None:
        self.blocked: list[str] = []
        self.proxy: NetworkProxy | None = None
        self.argv = ["/bin/sh", "-c", command]
        if box is None or not box.confined:
            return
        plan = ci_plan(root, checkout, hidden, command)
        if network != NONE:
            hosts = ci_hosts(network, command, checkout, os.environ)
            told = lambda host, port: self.blocked.append(f"{host}:{port}")  # noqa: E731
            self.proxy = NetworkProxy(Allowlist.of(hosts), root / "network.log", told)
            plan = replace(plan, network="proxy", sockets=(self.proxy.folder,))
            plan = plan.with_readable(Path(bridge_file()).parent)
            self.argv = bridge_argv(self.proxy, self.argv)
        self.argv = box.wrap(self.argv, plan)

    def blocked_note(self) -> str:
        """A line naming the hosts the run's proxy refused ("" for none)."""
        if not self.blocked:
            return ""
        hosts = ", ".join(dict.fromkeys(self.blocked))
        return f"\n[conveyor] the CI's box blocked {hosts} (`forge create-repo --ci-network`)\n"

    def __enter__(self) -> CiBox:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self.proxy is not None:
            self.proxy.close()
