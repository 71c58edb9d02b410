"""The job's boundary (JB-1, JB-14): role, checkout, session environment names, network, and
the sandbox its commands run in (drawn from the same plans the job uses)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from conveyor.agents.boxed import session_allowlist
from conveyor.agents.environment import build_env, session_vars
from conveyor.agents.launch import resolve_choice
from conveyor.core.config import Config
from conveyor.core.ecosystems import caches
from conveyor.core.session import SessionIdentity, SessionRole, SessionSpec
from conveyor.core.session_box import SessionSandbox
from conveyor.core.state import Stage
from conveyor.job.box_plans import (
    base_plan,
    command_boxing,
    hidden_paths,
    job_box,
    job_caches,
    job_tools,
    setup_hosts,
)
from conveyor.job.roles import JobRole, agent_role_of, role_of
from conveyor.job.session_boundary import session_box_entry
from conveyor.sandbox import BoxUnavailable
from conveyor.sandbox.describe import describe
from conveyor.sandbox.registry_config import registry_vars
from conveyor.verify.boxing import Opening, command_plan
from conveyor.verify.reports import report_path


def token_env_names(config: Config) -> tuple[str, ...]:
    """Variables holding the pipeline's credentials, never passed to a session."""
    return (config.account.token_env,) if config.account.token_env else ()


def session_role(role: JobRole) -> SessionRole:
    """Sessions run as writers in writer jobs and as readers otherwise (JB-3)."""
    return SessionRole.WRITER if role is JobRole.WRITER else SessionRole.READER


def cache_vars(environ: Mapping[str, str], cache_dir: Path) -> dict[str, str]:
    """A persistent cache home for commands, and the user's pip configuration file.

    Set-up commands then reuse downloads across jobs (pip, npm, yarn, Go's modules: the
    ecosystems' shared caches, `core.ecosystems`, and tools that follow XDG_CACHE_HOME)
    and reach the indexes the user configured for pip.
    """
    out = {"XDG_CACHE_HOME": str(cache_dir), "PIP_CACHE_DIR": str(cache_dir / "pip")}
    out |= {c.var: str(cache_dir / c.folder) for c in caches() if not c.own}
    home = Path(environ.get("HOME", "/nonexistent"))
    config_home = Path(environ.get("XDG_CONFIG_HOME", str(home / ".config")))
    candidates = [environ.get("PIP_CONFIG_FILE"), config_home / "pip" / "pip.conf"]
    candidates.append(home / ".pip" / "pip.conf")
    found = next((Path(c) for c in candidates if c and Path(c).is_file()), None)
    if found is not None:
        out["PIP_CONFIG_FILE"] = str(found)
    return out


def command_env(
    config: Config,
    environ: Mapping[str, str],
    *,
    home: Path,
    git_config: Path,
    cache_dir: Path | None = None,
) -> dict[str, str]:
    """The allowlisted environment of commands running agent-written code (no token).

    With `commands.shared_cache` (the default) commands get the registries the owner's
    tools are set up for (`registry_vars`: pip's, uv's, npm's, Go's, as outside the box),
    and with a `cache_dir` a persistent cache home and the user's pip configuration file
    (`cache_vars`); without it, only the job's empty HOME.
    """
    env = build_env(
        environ,
        backend="",
        home=home,
        git_config=git_config,
        conveyor_vars={},
        passthrough=config.passthrough_env,
        token_env=token_env_names(config),
    )
    if config.commands.shared_cache:
        env |= registry_vars(environ)
        if cache_dir is not None:
            env |= cache_vars(environ, cache_dir)
            # Caches the tests write (Go's build cache) stay in the command's own HOME: the
            # shared cache home is read-only to them.
            env |= {c.var: str(home / c.folder) for c in caches() if c.own}
    return env


def boundary_spec(config: Config, stage: Stage, *, job_dir: Path, issue: int) -> SessionSpec:
    """The spec a session of this stage's job would get (its prompts left empty)."""
    role = role_of(stage)
    choice = config.agents.for_role(agent_role_of(stage))
    backend, executable, scenario = resolve_choice(choice)
    sessions = job_dir / "sessions"
    return SessionSpec(
        role=session_role(role),
        backend=backend,
        model=choice.model,
        system_prompt="",
        task="",
        reply_model=agent_role_of(stage).value,
        cwd=job_dir / "repo",
        session_dir=sessions / stage.value,
        session_key=stage.value,
        identity=SessionIdentity(issue, stage.value, stage.value),
        executable=executable,
        scenario=scenario,
        issue_file=job_dir.parent.parent / "runs" / f"issue-{issue}" / "issue.md",
        control_socket=job_dir / "control.sock",
        git_config=job_dir / "gitconfig",
        base_url=choice.base_url,
        sandbox=SessionSandbox(config.sandbox.mode, config.sandbox.allow_hosts),
    )


def network_list(
    role: JobRole, spec: SessionSpec, environ: Mapping[str, str], api_url: str
) -> list[str]:
    """The hosts the role's job hands its sessions (JB-7): what their box lets through, the
    model API's hosts for the backend and model (`core.backends`), `[sandbox] allow_hosts` and
    the endpoints the job names; a merger runs no session and reaches the forge API only."""
    if role is JobRole.MERGER:
        return [api_url.split("://", 1)[-1].split("/", 1)[0]]
    return list(session_allowlist(spec, environ).names())


def session_env_names(
    config: Config, environ: Mapping[str, str], stage: Stage, *, job_dir: Path, issue: int
) -> list[str]:
    """The sorted names a session of this stage's job would get (values never leave here)."""
    spec = boundary_spec(config, stage, job_dir=job_dir, issue=issue)
    env = build_env(
        environ,
        backend=spec.backend,
        home=spec.session_dir / "home",
        git_config=job_dir / "gitconfig",
        conveyor_vars=session_vars(spec, 0),
        passthrough=config.passthrough_env,
        token_env=token_env_names(config),
    )
    return sorted(env)


def sandbox_entry(
    config: Config, environ: Mapping[str, str], *, job_dir: Path, config_dir: Path | None
) -> dict[str, object]:
    """What the job's box enforces for its commands, drawn from the plans the job uses.

    `commands` is a test, lint or typecheck run in the checkout; `setup` a setup run
    (the caches writable, the registries it may reach named in `allow`: the ones `[sandbox]
    setup_network` names, else its tools' own, each with why in `allow_why`).
    Each path given back says why; `not_given` lists what a command named, or the config
    asked for, that no box may see (a script in the config folder, a cache holding a
    home), and why.
    """
    try:
        box = job_box(config)
    except BoxUnavailable as exc:
        return {"mode": config.sandbox.mode, "unavailable": str(exc)}
    repo_home = job_dir.parent.parent
    hidden = hidden_paths(config, config_dir or repo_home, environ, repo_home)
    checkout = job_dir / "repo"
    boxing = command_boxing(box, config, base_plan(config, job_dir, checkout, hidden, environ))
    env = command_env(
        config,
        environ,
        home=boxing.plan.home,
        git_config=job_dir / "gitconfig",
        cache_dir=repo_home / "cache",
    )
    logs = report_path(job_dir / "logs", "test").parent
    envs = (repo_home / "envs",) if config.commands.reuse_setup else ()
    drawn: dict[str, object] = {}
    for name, setup in (("commands", False), ("setup", True)):
        opening = Opening(checkout, (checkout, logs), envs, setup)
        entry: dict[str, object] = dict(
            describe(box, command_plan(boxing, opening, env, create=False))
        )
        if setup and box.confined and boxing.setup_network == "proxy":
            entry["allow"] = sorted(boxing.setup_hosts)
            hosts = setup_hosts(config, environ, None)
            entry["allow_why"] = {r.host: r.why for r in hosts}
        drawn[name] = entry
    refused = job_tools(config, hidden, environ, checkout).refused
    refused += job_caches(config, hidden, environ).refused
    drawn["not_given"] = [{"path": str(g.path), "why": g.why} for g in refused]
    return drawn


def boundary_line(
    config: Config,
    environ: Mapping[str, str],
    stage: Stage,
    *,
    job_dir: Path,
    issue: int,
    config_dir: Path | None = None,
) -> str:
    """One JSON line: role, checkout path (not created), session env names, network list (for
    a reader or writer: the `allow` list its sessions' box enforces), and what the sandbox
    enforces for its commands and its sessions (none for a merger)."""
    role = role_of(stage)
    spec = boundary_spec(config, stage, job_dir=job_dir, issue=issue)
    names = session_env_names(config, environ, stage, job_dir=job_dir, issue=issue)
    data = {
        "role": role.value,
        "checkout": str(job_dir / "repo"),
        "env": names,
        "network": network_list(role, spec, environ, config.forge.api_url),
        "sandbox": sandbox_entry(config, environ, job_dir=job_dir, config_dir=config_dir),
        # A merge job runs no agent session: no session box to draw.
        "session_sandbox": None
        if role is JobRole.MERGER
        else session_box_entry(config, environ, spec, job_dir=job_dir, config_dir=config_dir),
    }
    return json.dumps(data)
