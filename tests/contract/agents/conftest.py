"""A checkout, a scenario file and a session spec for scripted-agent sessions."""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conveyor.agents.launch import scripted_executable
from conveyor.core.session import ContextLimits, SessionIdentity, SessionRole, SessionSpec

ACCEPT: dict[str, Any] = {
    "verdict": "pass",
    "reason": "ok",
    "missing": [],
    "no_tests_reason_holds": None,
    "summary": "s",
}
IMPLEMENT_DONE: dict[str, Any] = {
    "status": "done",
    "summary": "built it",
    "blocked_reason": None,
    "deviations": [],
}


def git(cwd: Path, *args: str) -> str:
    """Run git with a throwaway identity; returns stdout."""
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


@dataclass
class Sessions:
    """Builds scripted sessions under one tmp folder."""

    root: Path

    @property
    def checkout(self) -> Path:
        """The git checkout sessions run in."""
        return self.root / "repo"

    def scenario(self, *entries: dict[str, Any]) -> Path:
        """Write a scenario file holding these entries."""
        path = self.root / "scenario.json"
        path.write_text(json.dumps({"sessions": list(entries)}))
        return path

    def spec(
        self,
        scenario: Path,
        *,
        role: SessionRole = SessionRole.READER,
        reply_model: str = "accept",
        key: str = "s1",
        kind: str = "accept",
        **changes: Any,
    ) -> SessionSpec:
        """A scripted session spec for issue 7 tagged `[t]`."""
        issue = self.root / "issue.md"
        issue.write_text("# [t] Add a thing\n\nPlease add it.\n")
        base: dict[str, Any] = {
            "role": role,
            "backend": "claude",
            "model": "main-model",
            "fallback_model": "fallback-model",
            "system_prompt": "You are a test.",
            "task": "Do the task.",
            "reply_model": reply_model,
            "cwd": self.checkout,
            "session_dir": self.root / "sessions" / key,
            "session_key": key,
            "identity": SessionIdentity(7, kind, kind, 1),
            "context": ContextLimits(soft=150_000, hard=175_000),
            "timeout_seconds": 60.0,
            "executable": scripted_executable(),
            "scenario": scenario,
            "issue_file": issue,
        }
        base.update(changes)
        return SessionSpec(**base)


@pytest.fixture
def sessions(tmp_path: Path) -> Sessions:
    """A fresh checkout with one commit."""
    made = Sessions(tmp_path)
    made.checkout.mkdir()
    git(made.checkout, "init", "-q", "-b", "main")
    (made.checkout / "README.md").write_text("hello\n")
    git(made.checkout, "add", "-A")
    git(made.checkout, "commit", "-q", "-m", "first")
    return made
