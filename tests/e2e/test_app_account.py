"""A GitHub App as the pipeline's account: jobs act as SLUG[bot] and git gets its token."""

from __future__ import annotations

from conveyor.core.state import Stage
from conveyor.core.state_codec import find_state
from conveyor.testing.world import World, config_toml
from tests.e2e.helpers import spec_ready, triage


def test_an_app_account_takes_an_issue_to_a_draft_pr_as_its_bot(world: World) -> None:
    """Triage and spec with App auth: the state, claim and spec comments are the bot's."""
    slug = world.repo.split("/")[1] + "-app"  # Apps are forge-wide: one per test's repository
    bot = f"{slug}[bot]"
    created = world.server.add_app(slug, install=world.repo)
    assert created.installation_id is not None
    app = {
        "id": created.app_id,
        "private_key_file": str(created.private_key_path),
        "installation_id": created.installation_id,
        "slug": slug,
    }
    data = world.base_config() | {"account": {"login": bot, "app": app}}
    world.config_path.write_text(config_toml(data))
    world.write_scenario([triage("app"), spec_ready("app")])
    issue = world.open_issue("Add a stock total [app]", "Sum the quantities of every item.")
    done = world.drive(issue.number, through="spec")
    assert done.returncode == 0, done.stdout + done.stderr
    comments = world.comments(issue.number)
    state = find_state(comments, bot).state
    assert state is not None
    assert state.stage is Stage.IMPLEMENT
    assert any("## Spec" in c.body and c.author == bot for c in comments)
    pr = world.pr(issue.number)
    assert pr is not None
    assert pr.head_sha == world.ref(f"refs/heads/agent/issue-{issue.number}")
