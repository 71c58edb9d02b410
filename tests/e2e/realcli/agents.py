"""How a World's pipeline runs a real agent CLI against the loopback fake model."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conveyor.core.backends import FACTS, BackendName
from tests.contract.realcli.clis import cli_path

# A canary for a forge token in the orchestrator's environment: it must reach no model.
CANARY = {"GH_TOKEN": "canary-gh-token-realagents-51c3"}


@dataclass(frozen=True)
class Cli:
    """One real CLI: its backend name and a model name the fake model answers to."""

    backend: BackendName
    model: str

    def environ(self) -> dict[str, str]:
        """The provider variables the CLI needs (all fake: its row's `demo_env`) and the canary."""
        return {**FACTS[self.backend].demo_env, **CANARY}

    def agent(self, clis_bin: Path, url: str) -> dict[str, Any]:
        """The config's agent choice: this CLI, at its absolute path, on the fake model."""
        executable = cli_path(clis_bin, self.backend)
        return {"agent": self.backend, "model": self.model, "executable": str(executable),
                "base_url": url}  # fmt: skip


CLIS = (
    Cli("claude", "claude-sonnet-4-5"),
    Cli("codex", "fake-model"),
    Cli("opencode", "anthropic/claude-sonnet-4-5"),
)
IDS = [cli.backend for cli in CLIS]
