"""The boundary of each role: session environment names and the network list (JB-1, JB-7)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conveyor.core.config import AccountConfig, Commands, Config
from conveyor.core.state import Stage
from conveyor.job.boundary import boundary_line

CONFIG = Config(
    repo="acme/inventory",
    account=AccountConfig(login="bot", token_env="BOT_TOKEN"),
    allowed_users=("alice",),
    commands=Commands(test="pytest"),
)
ENVIRON = {
    "PATH": "/bin",
    "BOT_TOKEN": "secret-value-1",
    "GH_TOKEN": "secret-value-2",
    "GITHUB_TOKEN": "secret-value-3",
    "CONVEYOR_TEST_SECRET": "secret-value-4",
    "ANTHROPIC_API_KEY": "k",
}


@pytest.mark.parametrize(
    ("stage", "role", "network"),
    [
        (Stage.TRIAGE, "reader", ["api.anthropic.com"]),
        (Stage.IMPLEMENT, "writer", ["api.anthropic.com"]),
        (Stage.MERGE, "merger", ["api.github.com"]),
    ],
)
def test_each_role_has_its_network_and_no_token_names(
    tmp_path: Path, stage: Stage, role: str, network: list[str]
) -> None:
    """Readers' and writers' sessions reach the model API (a writer's setup reaches only what
    `setup_network` names, drawn under `sandbox.setup`), the merger only the forge."""
    line = boundary_line(CONFIG, ENVIRON, stage, job_dir=tmp_path / "jobs" / "j", issue=3)
    boundary = json.loads(line)
    assert (boundary["role"], boundary["network"]) == (role, network)
    assert not {"BOT_TOKEN", "GH_TOKEN", "GITHUB_TOKEN", "CONVEYOR_TEST_SECRET"} & set(
        boundary["env"]
    )
    assert "ANTHROPIC_API_KEY" in boundary["env"]
    assert "secret-value" not in line
    assert not (tmp_path / "jobs").exists()
