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

from conveyor.core.backends import FACTS
from conveyor.testing.fake_model import FakeModel
from conveyor.testing.fake_model.playbook import Playbook, parts_from_scenario


def demo_playbook(scenario: Path) -> Playbook:
    """The demo's scenario as the fake model's playbook."""
    sessions = json.loads(scenario.read_text(encoding="utf-8"))["sessions"]
    return Playbook(parts_from_scenario(sessions))


def demo_model(agent: str) -> str:
    """A model name the CLI accepts (its row's `demo_model`); the fake model answers to any."""
    return FACTS[agent].demo_model  # type: ignore[index]


def fake_environ() -> dict[str, str]:
    """What the CLIs need to believe they have a provider: every row's `demo_env` (fake keys,
    opencode offline and quiet)."""
    found: dict[str, str] = {}
    for row in FACTS.values():
        found |= row.demo_env
    return found


def start_fake_model(playbook: Playbook) -> FakeModel:
    """The fake model serving `playbook` on loopback (stop it with `__exit__`)."""
    return FakeModel(playbook).__enter__()
