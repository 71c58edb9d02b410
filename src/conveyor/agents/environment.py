"""The session's environment: an allowlist with no forge token, a session HOME, job-owned git."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path

from conveyor.core.backends import facts_of
from conveyor.core.session import SessionSpec
from conveyor.sandbox.toolchains import manager_roots, root_variables

BASE = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "TMPDIR", "TZ")
FORGE_TOKENS = frozenset(
    {"GH_TOKEN", "GITHUB_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN"}
)
GIT_CONFIG = """[user]
\tname = Conveyor agent
\temail = agent@conveyor.invalid
[commit]
\tgpgsign = false
[init]
\tdefaultBranch = main
"""


def session_vars(spec: SessionSpec, retry: int) -> dict[str, str]:
    """The CONVEYOR_* variables every backend's session gets."""
    ident = spec.identity
    out = {
        "CONVEYOR_ISSUE": str(ident.issue),
        "CONVEYOR_STAGE": ident.stage,
        "CONVEYOR_SESSION_KIND": ident.kind,
        "CONVEYOR_ATTEMPT": str(ident.attempt),
        "CONVEYOR_SESSION_KEY": spec.session_key,
        "CONVEYOR_SESSION_DIR": str(spec.session_dir),
        "CONVEYOR_REPLY_MODEL": spec.reply_model,
        "CONVEYOR_ROLE": spec.role.value,
        "CONVEYOR_RETRY": str(retry),
        "CONVEYOR_CHECKOUT": str(spec.cwd),
    }
    optional = {
        "CONVEYOR_CONTROL_SOCKET": spec.control_socket,
        "CONVEYOR_ISSUE_FILE": spec.issue_file,
        "CONVEYOR_SCENARIO": spec.scenario,
    }
    out |= {name: str(value) for name, value in optional.items() if value is not None}
    return out


def build_env(
    environ: Mapping[str, str],
    *,
    backend: str,
    home: Path,
    git_config: Path,
    conveyor_vars: Mapping[str, str],
    passthrough: tuple[str, ...] = (),
    token_env: tuple[str, ...] = (),
) -> dict[str, str]:
    """The allowlisted environment; forge tokens never pass, whatever `passthrough` says.

    A `backend` of `core.backends` also passes its provider variables (`env_prefixes`).
    The version managers' root variables come too (`PYENV_ROOT`, `RUSTUP_HOME`, …, as
    this machine has them): `HOME` here is not the owner's, and a manager that finds
    its root through `$HOME` would look in the wrong place.
    """
    forbidden = FORGE_TOKENS | set(token_env)
    facts = facts_of(backend)
    prefixes = () if facts is None else facts.env_prefixes
    out: dict[str, str] = {}
    for name, value in environ.items():
        if name in forbidden or name.startswith("CONVEYOR_"):
            continue
        if name in BASE or name in passthrough or name.startswith(prefixes):
            out[name] = value
    out |= root_variables(manager_roots(environ))
    out |= {
        "HOME": str(home),
        "GIT_CONFIG_GLOBAL": str(git_config),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_TERMINAL_PROMPT": "0",
    }
    out |= {k: v for k, v in conveyor_vars.items() if k.startswith("CONVEYOR_")}
    return out


def prepare_home(environ: Mapping[str, str], backend: str, session_dir: Path) -> Path:
    """Create the session HOME (`session_dir/home`, returned) holding only this CLI's own login
    files, when the owner has them: `auth_files` under HOME, and the `state_files` of the folder
    its `state_var` names into `session_dir/<name>-home` (codex's `CODEX_HOME`)."""
    home = session_dir / "home"
    home.mkdir(parents=True, exist_ok=True)
    facts = facts_of(backend)
    if facts is None:
        return home
    owner_home = Path(environ.get("HOME", "/nonexistent"))
    for relative in facts.auth_files:
        _copy_private(owner_home / relative, home / relative)
    if facts.state_var is not None:
        state = session_dir / facts.state_dir
        state.mkdir(parents=True, exist_ok=True)
        source = Path(environ.get(facts.state_var, str(owner_home / facts.state_default)))
        for name in facts.state_files:
            _copy_private(source / name, state / name)
    return home


def _copy_private(source: Path, target: Path) -> None:
    if not source.is_file():
        return
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    shutil.copyfile(source, target)
    target.chmod(0o600)


def ensure_git_config(spec: SessionSpec) -> Path:
    """The job's git config, or a default one written into the session folder."""
    if spec.git_config is not None:
        return spec.git_config
    path = spec.session_dir / "gitconfig"
    if not path.exists():
        path.write_text(GIT_CONFIG)
    return path
