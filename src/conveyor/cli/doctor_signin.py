"""The doctor's sign-in check: each configured agent CLI asked, as a session would be.

A CLI that is installed but not signed in fails every session at once; the
check runs the CLI's own status command (`claude auth status`, `codex login
status`, `opencode auth list`) with the environment and HOME a session gets:
the allowlisted variables and only that CLI's copied login file.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

from conveyor.agents.environment import build_env, prepare_home
from conveyor.agents.launch import resolve_choice
from conveyor.cli.doctor_checks import Check
from conveyor.core.config import AgentChoice, Config, Role
from conveyor.core.session import BackendName

STATUS_TIMEOUT_S = 60.0
OPENCODE_QUIET = {"OPENCODE_DISABLE_MODELS_FETCH": "1", "OPENCODE_DISABLE_AUTOUPDATE": "1"}
ANSI = re.compile(r"\x1b\[[0-9;]*m")
SIGN_IN = {
    "claude": "run `claude auth login`, or set ANTHROPIC_API_KEY",
    "codex": "run `codex login`, or `printenv OPENAI_API_KEY | codex login --with-api-key`",
    "opencode": "run `opencode auth login`, or set the provider's API key variable",
}


def _status_argv(backend: BackendName, program: str) -> list[str]:
    match backend:
        case "claude":
            return [program, "auth", "status", "--json"]
        case "codex":
            return [program, "login", "status"]
        case "opencode":
            return [program, "auth", "list"]


def _judge(backend: BackendName, choice: AgentChoice, env: Mapping[str, str], code: int,
           output: str) -> tuple[bool, str]:  # fmt: skip
    """Whether the status output says the CLI can work, and the line to show."""
    text = ANSI.sub("", output).strip()
    if backend == "claude":
        try:
            said = json.loads(text)
        except ValueError:
            said = {}
        if code == 0 and said.get("loggedIn") is True:
            return True, f"signed in ({said.get('authMethod', 'unknown')})"
        return False, "not signed in"
    if backend == "codex":
        if code == 0:
            return True, text.splitlines()[-1] if text else "logged in"
        if choice.base_url and env.get("OPENAI_API_KEY"):
            return True, f"OPENAI_API_KEY for {choice.base_url}"
        return False, text.splitlines()[-1] if text else "not logged in"
    provider = choice.model.split("/", 1)[0].lower() if "/" in choice.model else "anthropic"
    listed = [line for line in text.lower().splitlines() if provider in line]
    if listed:
        return True, f"{provider} credentials found"
    return False, f"no credentials for {provider}"


def check_signed_in(config: Config, environ: Mapping[str, str]) -> list[Check]:
    """One check per configured real agent CLI that is installed: is it signed in?"""
    found: list[Check] = []
    seen: set[tuple[str, str]] = set()
    for role in Role:
        choice = config.agents.for_role(role)
        if choice.agent == "scripted":
            continue
        backend, executable, _ = resolve_choice(choice)
        program = executable or environ.get(f"CONVEYOR_{backend.upper()}_EXECUTABLE") or backend
        if (backend, program) in seen or not _installed(program, environ):
            continue  # a missing CLI is the tools check's finding
        seen.add((backend, program))
        ok, detail = _ask(backend, program, choice, config, environ)
        if not ok:
            detail = f"{detail}: {SIGN_IN[backend]}"
        found.append(Check(f"agent {backend} sign-in", ok, detail))
    return found


def _installed(program: str, environ: Mapping[str, str]) -> bool:
    return Path(program).is_file() or shutil.which(program, path=environ.get("PATH")) is not None


def _ask(backend: BackendName, program: str, choice: AgentChoice, config: Config,
         environ: Mapping[str, str]) -> tuple[bool, str]:  # fmt: skip
    """Run the status command in a session's environment, in a throwaway HOME."""
    with tempfile.TemporaryDirectory(prefix="conveyor-doctor-") as folder:
        home, codex_home = Path(folder) / "home", Path(folder) / "codex-home"
        prepare_home(environ, backend, home, codex_home)
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
        if backend == "codex":
            env["CODEX_HOME"] = str(codex_home)
        if backend == "opencode":
            env |= OPENCODE_QUIET  # listing credentials needs no model list nor update check
        if choice.base_url and backend == "claude":
            env["ANTHROPIC_BASE_URL"] = choice.base_url
        try:
            done = subprocess.run(
                _status_argv(backend, program),
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
        return _judge(backend, choice, env, done.returncode, done.stdout or done.stderr)
