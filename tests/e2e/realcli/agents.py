"""How a World's pipeline runs a real agent CLI against the loopback fake model."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conveyor.core.session import BackendName
from tests.contract.realcli.clis import cli_path

# A canary for a forge token in the orchestrator's environment: it must reach no model.
CANARY = {"GH_TOKEN": "canary-gh-token-realagents-51c3"}
# Keeps opencode offline and quiet (no model list, no update check, no share, no LSP).
OPENCODE_OFFLINE = {
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    "OPENCODE_DISABLE_SHARE": "1",
}


@dataclass(frozen=True)
class Cli:
    """One real CLI: its backend name and a model name the fake model answers to."""

    backend: BackendName
    model: str

    def environ(self) -> dict[str, str]:
        """The provider variables the CLI needs (all fake) and the canary."""
        if self.backend == "codex":
            return {"OPENAI_API_KEY": "fake-openai-key", **CANARY}
        extra = OPENCODE_OFFLINE if self.backend == "opencode" else {}
        return {"ANTHROPIC_API_KEY": "fake-anthropic-key", **extra, **CANARY}

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
