"""One session of a real CLI against the fake model, with its retries, for the failure tests."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from conveyor.agents.launch import launch
from conveyor.core.backends import BackendName
from conveyor.core.session import SessionIdentity, SessionResult, SessionRole, SessionSpec
from conveyor.testing.fake_model import FakeModel, Script
from tests.contract.realcli.clis import cli_path
from tests.e2e.realcli.agents import CLIS

MODELS: dict[str, str] = {cli.backend: cli.model for cli in CLIS}
# The CLIs' own retries off, so a failing provider answers at once (Conveyor retries).
NO_RETRIES: dict[str, Mapping[str, object]] = {
    "codex": {
        "model_providers.conveyor-provider.request_max_retries": 0,
        "model_providers.conveyor-provider.stream_max_retries": 0,
    },
}
QUIET = {"CLAUDE_CODE_MAX_RETRIES": "0"}


def checkout(root: Path) -> Path:
    """A git checkout with one commit."""
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "start"], cwd=root, check=True)
    return root


def session(
    backend: BackendName,
    clis_bin: Path,
    tmp_path: Path,
    *,
    role: SessionRole = SessionRole.READER,
    reply_model: str = "triage",
    **more: object,
) -> SessionSpec:
    """A session of `backend` (`run` points it at the fake model)."""
    values: dict[str, object] = {
        "role": role,
        "backend": backend,
        "model": MODELS[backend],
        "system_prompt": "You are a test session.",
        "task": "Reply through submit_reply.",
        "reply_model": reply_model,
        "cwd": checkout(tmp_path / "checkout"),
        "session_dir": tmp_path / "session",
        "session_key": f"failure-{backend}",
        "identity": SessionIdentity(issue=1, stage="triage", kind="triage"),
        "timeout_seconds": 120,
        "executable": str(cli_path(clis_bin, backend)),
        "backend_settings": NO_RETRIES.get(backend, {}),
    }
    return SessionSpec(**(values | more))  # type: ignore[arg-type]


def environ(backend: BackendName, tmp_path: Path, *, signed_in: bool = True) -> dict[str, str]:
    """The owner's environment: an empty HOME, fake keys when `signed_in`."""
    home = tmp_path / "owner-home"
    home.mkdir(exist_ok=True)
    env = {"PATH": os.environ["PATH"], "HOME": str(home), **QUIET}
    env["CONVEYOR_HOME"] = str(tmp_path / "conveyor-home")
    if signed_in:
        env |= {"OPENAI_API_KEY": "fake-openai-key", "ANTHROPIC_API_KEY": "fake-anthropic-key"}
    return env


def run(spec: SessionSpec, script: Script | None, environ: dict[str, str]) -> SessionResult:
    """Launch `spec` (retries included), against a fake model playing `script` when given."""
    if script is None:
        return launch(spec, environ)
    with FakeModel(script) as model:
        return launch(replace(spec, base_url=model.url), environ)
