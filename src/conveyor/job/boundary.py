"""The job's boundary (JB-1, JB-14): role, checkout, session environment names, network."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from conveyor.agents.environment import build_env, session_vars
from conveyor.agents.launch import resolve_choice
from conveyor.core.config import Config
from conveyor.core.session import SessionIdentity, SessionRole, SessionSpec
from conveyor.core.state import Stage
from conveyor.job.roles import STAGE_AGENT_ROLES, JobRole, network_list, role_of


def token_env_names(config: Config) -> tuple[str, ...]:
    """Variables holding the pipeline's credentials, never passed to a session."""
    return (config.account.token_env,) if config.account.token_env else ()


def session_role(role: JobRole) -> SessionRole:
    """Sessions run as writers in writer jobs and as readers otherwise (JB-3)."""
    return SessionRole.WRITER if role is JobRole.WRITER else SessionRole.READER


def command_env(
    config: Config, environ: Mapping[str, str], *, home: Path, git_config: Path
) -> dict[str, str]:
    """The allowlisted environment of commands running agent-written code (no token)."""
    return build_env(
        environ,
        backend="",
        home=home,
        git_config=git_config,
        conveyor_vars={},
        passthrough=config.passthrough_env,
        token_env=token_env_names(config),
    )


def session_env_names(
    config: Config, environ: Mapping[str, str], stage: Stage, *, job_dir: Path, issue: int
) -> list[str]:
    """The sorted names a session of this stage's job would get (values never leave here)."""
    role = role_of(stage)
    choice = config.agents.for_role(STAGE_AGENT_ROLES[stage])
    backend, _, scenario = resolve_choice(choice)
    sessions = job_dir / "sessions"
    spec = SessionSpec(
        role=session_role(role),
        backend=backend,
        model=choice.model,
        system_prompt="",
        task="",
        reply_model=STAGE_AGENT_ROLES[stage].value,
        cwd=job_dir / "repo",
        session_dir=sessions / stage.value,
        session_key=stage.value,
        identity=SessionIdentity(issue, stage.value, stage.value),
        scenario=scenario,
        issue_file=job_dir.parent.parent / "runs" / f"issue-{issue}" / "issue.md",
        control_socket=job_dir / "control.sock",
        git_config=job_dir / "gitconfig",
    )
    env = build_env(
        environ,
        backend=backend,
        home=spec.session_dir / "home",
        git_config=job_dir / "gitconfig",
        conveyor_vars=session_vars(spec, 0),
        passthrough=config.passthrough_env,
        token_env=token_env_names(config),
    )
    return sorted(env)


def boundary_line(
    config: Config, environ: Mapping[str, str], stage: Stage, *, job_dir: Path, issue: int
) -> str:
    """One JSON line: role, checkout path (not created), session env names, network list."""
    role = role_of(stage)
    choice = config.agents.for_role(STAGE_AGENT_ROLES[stage])
    names = session_env_names(config, environ, stage, job_dir=job_dir, issue=issue)
    data = {
        "role": role.value,
        "checkout": str(job_dir / "repo"),
        "env": names,
        "network": list(network_list(role, choice.agent, config.forge.api_url)),
    }
    return json.dumps(data)
