"""The box a stage's sessions start in, drawn for `--print-boundary` from the plan they use."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from conveyor.agents.boxed import session_allowlist, session_plan
from conveyor.agents.runner import find_executable
from conveyor.core.config import Config
from conveyor.core.session import SessionSpec
from conveyor.core.session_box import SessionSandbox
from conveyor.job.box_plans import base_plan, hidden_paths, job_box
from conveyor.sandbox import BoxUnavailable
from conveyor.sandbox.describe import describe
from conveyor.sandbox.listener import short_tmp


def session_box_entry(
    config: Config,
    environ: Mapping[str, str],
    spec: SessionSpec,
    *,
    job_dir: Path,
    config_dir: Path | None,
) -> dict[str, object]:
    """What a session's box enforces (paths, network) and the hosts its proxy lets through."""
    try:
        box = job_box(config)
    except BoxUnavailable as exc:
        return {"mode": config.sandbox.mode, "unavailable": str(exc)}
    repo_home = job_dir.parent.parent
    hidden = hidden_paths(config, config_dir or repo_home, environ, repo_home)
    base = base_plan(config, job_dir, job_dir / "repo", hidden, environ)
    sandbox = SessionSandbox(
        config.sandbox.mode, config.sandbox.allow_hosts, base.hidden, base.readable, base.writable
    )
    spec = replace(spec, sandbox=sandbox)
    executable = find_executable(spec, environ) or spec.backend
    sockets = (Path(short_tmp()) / "cv-net-*", Path(short_tmp()) / "cv-mcp-*")
    plan = replace(session_plan(spec, environ, executable, sockets), given=base.given)
    drawn: dict[str, object] = dict(describe(box, plan))
    if box.confined:
        drawn["allow"] = list(session_allowlist(spec, environ).names())
    return drawn
