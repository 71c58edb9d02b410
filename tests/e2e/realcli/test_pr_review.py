"""A person's PR reviewed through a real CLI and the loopback fake model: the distiller, the
angles and the reviewer are real `claude` sessions, and the review lands on the right line."""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.emulator.app.server import ForgeServer
from conveyor.testing.fake_model import FakeModel
from conveyor.testing.fake_model.playbook import Playbook, parts_from_scenario, session_kind
from conveyor.testing.world import ACCOUNT, TRUSTED, World
from tests.e2e.people.helpers import LABEL, LABELS_PY, PLURAL, angle, brief, person_pr, reviewer
from tests.e2e.realcli.agents import CANARY, CLIS, Cli

pytestmark = [pytest.mark.e2e, pytest.mark.realcli]
CLAUDE: Cli = next(cli for cli in CLIS if cli.backend == "claude")


@pytest.mark.timeout(600)
def test_a_persons_pr_is_reviewed_through_the_real_claude_cli(
    clis_bin: Path, forge_server: ForgeServer, tmp_path: Path
) -> None:
    """Four real sessions reply through the MCP tool; one review with the comment on line 11."""
    tag = "realreview"
    scenario = [brief(tag), angle(tag, "correctness", PLURAL), angle(tag, "tests"),
                reviewer(tag, "Count the items.", (1, "Use count here."))]  # fmt: skip
    with FakeModel(Playbook(parts_from_scenario(scenario))) as model:
        world = World.create(
            forge_server,
            tmp_path / "world",
            config={
                "limits": {"claim_wait_seconds": [0, 0]},
                "agents": {"default": CLAUDE.agent(clis_bin, model.url)},
                "pr_reviews": {"label": LABEL},
            },
        )
        world.extra_env |= CLAUDE.environ()
        pr = person_pr(world, tmp_path, f"Plural [{tag}]")
        world.forge_as(TRUSTED).add_labels(pr.number, [LABEL])
        done = world.job(pr.number, "pr-review")
        requests = model.requests
    assert done.returncode == 0, done.stdout + done.stderr
    (review,) = [r for r in world.forge_as(TRUSTED).list_reviews(pr.number) if r.author == ACCOUNT]
    assert review.commit_id == pr.head_sha
    assert "Count the items." in review.body
    comments = world.forge_as(TRUSTED).list_review_comments(pr.number)
    assert [(c.path, c.line) for c in comments] == [(LABELS_PY, 11)]
    assert "Use count here." in comments[0].body
    kinds = {session_kind(r.body.decode(errors="replace")) for r in requests}
    assert {"brief", "angle-correctness", "angle-tests", "pr-review"} <= kinds
    token = world.tokens["conveyor-bot"]
    for secret in (token, *CANARY.values()):
        assert not any(r.contains(secret) for r in requests), "a forge token reached the model"
