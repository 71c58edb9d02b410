"""A clean issue goes from triage to merged through each real CLI and the loopback fake model."""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.core.state import Stage
from conveyor.emulator.app.server import ForgeServer
from conveyor.testing.fake_model import FakeModel
from conveyor.testing.fake_model.playbook import Playbook, parts_from_scenario, session_kind
from conveyor.testing.world import World
from tests.e2e.back.merge_helpers import clean_back_half
from tests.e2e.helpers import IMPL, TEST, implement_done, spec_ready, triage
from tests.e2e.realcli.agents import CANARY, CLIS, IDS, Cli

pytestmark = [pytest.mark.e2e, pytest.mark.realcli]
DRIVE_TIMEOUT_S = 900


def _playbook(tag: str) -> Playbook:
    """The clean issue's sessions; the implementer runs the tests before it replies."""
    implement = implement_done(tag)
    implement["turns"][0]["actions"].append({"run": "{test}"})
    return Playbook(parts_from_scenario([triage(tag), spec_ready(tag), implement,
                                         *clean_back_half(tag)]))  # fmt: skip


@pytest.mark.timeout(DRIVE_TIMEOUT_S + 120)
@pytest.mark.parametrize("cli", CLIS, ids=IDS)
def test_a_clean_issue_merges_through_the_real_cli(
    cli: Cli, clis_bin: Path, forge_server: ForgeServer, tmp_path: Path
) -> None:
    """Every stage's session is the real CLI: files, tests and replies through its tools."""
    tag = f"real{cli.backend}"
    with FakeModel(_playbook(tag)) as model:
        limits = {"claim_wait_seconds": [0, 0], "ci_poll_seconds": 0.2}
        world = World.create(
            forge_server,
            tmp_path / "world",
            config={"limits": limits, "agents": {"default": cli.agent(clis_bin, model.url)}},
        )
        world.extra_env |= cli.environ()
        issue = world.open_issue(f"Add a stock total [{tag}]", "Sum the quantities of every item.")
        # Nine CLI sessions (opencode's each take ~8 s of CPU to start): under a loaded
        # gate that is minutes, so the guard against a hang is wide.
        done = world.drive(issue.number, timeout=DRIVE_TIMEOUT_S)
        requests = model.requests
    assert done.returncode == 0, done.stdout + done.stderr
    state = world.state(issue.number)
    assert state is not None
    said = "\n".join(c.body for c in world.comments(issue.number))
    assert state.stage is Stage.DONE, done.stdout + said
    assert "agent:merged" in world.labels(issue.number)
    assert world.base_file("inventory/total.py") == IMPL
    assert world.base_file("tests/test_total.py") == TEST
    kinds = {session_kind(r.body.decode(errors="replace")) for r in requests}
    assert {"triage", "spec", "implement", "accept", "security"} <= kinds
    assert {"review-correctness", "review-tests", "review-scope"} <= kinds
    assert any(r.contains("passed") for r in requests), "the implementer's test run came back"
    token = world.tokens["conveyor-bot"]
    for secret in (token, *CANARY.values()):
        assert not any(r.contains(secret) for r in requests), "a forge token reached the model"
