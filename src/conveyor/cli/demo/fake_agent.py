"""`conveyor demo --agent X --fake-model`: the real CLI, its model a loopback fake.

Every session is the real `claude`, `codex` or `opencode`, pointed (by the
agent's `base_url`) at `conveyor.testing.fake_model`, which plays the demo's
scenario through the CLI's own tools: it reads the issue file to learn the
issue's tag, writes files, runs commands and replies through the MCP tools.
No account, no key and no network are needed; the keys it sets are fake.
"""

from __future__ import annotations

import json
from pathlib import Path

from conveyor.testing.fake_model import FakeModel
from conveyor.testing.fake_model.playbook import Playbook, parts_from_scenario

# A model name each CLI accepts; the fake model answers to any.
MODELS = {
    "claude": "claude-sonnet-4-5",
    "codex": "fake-model",
    "opencode": "anthropic/claude-sonnet-4-5",
}
FAKE_KEYS = {"ANTHROPIC_API_KEY": "fake-anthropic-key", "OPENAI_API_KEY": "fake-openai-key"}
# opencode stays offline and quiet: no model list, no update check, no share, no LSP.
OPENCODE_OFFLINE = {
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    "OPENCODE_DISABLE_SHARE": "1",
}


def demo_playbook(scenario: Path) -> Playbook:
    """The demo's scenario as the fake model's playbook."""
    sessions = json.loads(scenario.read_text(encoding="utf-8"))["sessions"]
    return Playbook(parts_from_scenario(sessions))


def fake_environ() -> dict[str, str]:
    """What the CLIs need to believe they have a provider: fake keys, opencode offline."""
    return {**FAKE_KEYS, **OPENCODE_OFFLINE}


def start_fake_model(playbook: Playbook) -> FakeModel:
    """The fake model serving `playbook` on loopback (stop it with `__exit__`)."""
    return FakeModel(playbook).__enter__()
