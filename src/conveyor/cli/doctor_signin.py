"""The doctor's sign-in check: each configured agent CLI asked, as a session would be.

A CLI that is installed but not signed in fails every session at once; the
check runs the CLI's own status command (its row's `status_args` in `core.backends`:
`claude auth status`, `codex login status`, `opencode auth list`) with the environment
and HOME a session gets: the allowlisted variables and only that CLI's copied login
file. Its backend's `signed_in` reads the answer.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

from conveyor.agents.backends.registry import backend_for
from conveyor.agents.environment import build_env, prepare_home
from conveyor.agents.launch import resolve_choice
from conveyor.cli.doctor_checks import Check
from conveyor.core.backends import FACTS, SCRIPTED, BackendName
from conveyor.core.config import AgentChoice, Config, Role

STATUS_TIMEOUT_S = 60.0
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def check_signed_in(config: Config, environ: Mapping[str, str]) -> list[Check]:
    """One check per configured real agent CLI that is installed: is it signed in?"""
    found: list[Check] = []
    seen: set[tuple[str, str]] = set()
    for role in Role:
        choice = config.agents.for_role(role)
        if choice.agent == SCRIPTED:
            continue
        backend, executable, _ = resolve_choice(choice)
        program = executable or environ.get(f"CONVEYOR_{backend.upper()}_EXECUTABLE") or backend
        if (backend, program) in seen or not _installed(program, environ):
            continue  # a missing CLI is the tools check's finding
        seen.add((backend, program))
        ok, detail = _ask(backend, program, choice, config, environ)
        if not ok:
            detail = f"{detail}: {FACTS[backend].sign_in}"
        found.append(Check(f"agent {backend} sign-in", ok, detail))
    return found


def _installed(program: str, environ: Mapping[str, str]) -> bool:
    return Path(program).is_file() or shutil.which(program, path=environ.get("PATH")) is not None


def _ask(backend: BackendName, program: str, choice: AgentChoice, config: Config,
         environ: Mapping[str, str]) -> tuple[bool, str]:  # fmt: skip
    """Run the status command in a session's environment, in a throwaway HOME."""
    facts = FACTS[backend]
    with tempfile.TemporaryDirectory(prefix="conveyor-doctor-") as folder:
        home = prepare_home(environ, backend, Path(folder))
        git_config = Path(folder) / "gitconfig"
        git_config.write_text("")
        env = build_env(
            environ,
            backend=backend,
            home=home,
            git_config=git_config,
            conveyor_vars={},
            passthrough=config.passthrough_env,
        )
        if facts.state_var is not None:
            env[facts.state_var] = str(Path(folder) / facts.state_dir)
        env |= facts.status_env
        if choice.base_url and facts.base_url_var is not None:
            env[facts.base_url_var] = choice.base_url
        try:
            done = subprocess.run(
                [program, *facts.status_args],
                capture_output=True,
                text=True,
                env=env,
                cwd=folder,
                stdin=subprocess.DEVNULL,
                timeout=STATUS_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            return False, f"{program}: {error}"
        said = ANSI.sub("", done.stdout or done.stderr).strip()
        return backend_for(backend).signed_in(done.returncode, said, choice, env)
