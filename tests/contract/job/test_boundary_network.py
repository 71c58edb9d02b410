"""`--print-boundary`'s network is the list its sessions' box lets through, for every backend
and model (#50: codex's and opencode's contradicted the box's `allow` in the same line)."""

from __future__ import annotations

import json

import pytest

from conveyor.core.backends import FACTS, NAMES
from conveyor.testing.world import World

# (agent, model, hosts its network must hold, hosts it must not)
CASES = [
    ("claude", "sonnet", {"api.anthropic.com"}, {"api.openai.com"}),
    ("codex", "gpt-5", {"api.openai.com", "chatgpt.com", "auth.openai.com"}, {"pypi.org"}),
    ("opencode", "openai/gpt-5", {"api.openai.com"}, {"api.anthropic.com"}),
    ("opencode", "openrouter/some-model", {"openrouter.ai"}, {"api.anthropic.com"}),
    ("opencode", "claude-sonnet-4-5", {"api.anthropic.com"}, {"api.openai.com"}),
    ("scripted", "sonnet", {"api.anthropic.com"}, set()),
]


def test_every_backend_has_a_case() -> None:
    """A new row in `core.backends` needs its case here."""
    assert {agent for agent, *_ in CASES} >= set(NAMES)
    assert set(FACTS) == set(NAMES)


@pytest.mark.parametrize("stage", ["triage", "implement"])
@pytest.mark.parametrize(("agent", "model", "present", "absent"), CASES)
def test_the_printed_network_is_the_sessions_allow_list(  # noqa: PLR0917 - the case
    world: World, stage: str, agent: str, model: str, present: set[str], absent: set[str]
) -> None:
    """A reader's and a writer's network equal their sessions' box's `allow`: the model API
    hosts of the backend and model, `allow_hosts`, and the base URL's loopback endpoint."""
    choice: dict[str, object] = {"agent": agent, "model": model}
    if agent == "scripted":
        choice["scenario"] = str(world.scenario_path)
    world.write_config(
        {
            "agents": {"default": choice | {"base_url": "http://127.0.0.1:4321"}},
            "sandbox": {"allow_hosts": ["files.example.org"]},
        }
    )
    world.repo_home.mkdir(parents=True)
    done = world.job(1, stage, "--print-boundary")
    assert done.returncode == 0, done.stderr
    line = json.loads(done.stdout)
    network = line["network"]
    assert network == line["session_sandbox"]["allow"]
    assert present | {"files.example.org", "127.0.0.1:4321"} <= set(network)
    assert not absent & set(network)


def test_a_merge_job_reaches_the_forge_and_draws_no_session_box(world: World) -> None:
    """The merger runs no agent session: its network is the forge API's host only."""
    world.repo_home.mkdir(parents=True)
    done = world.job(1, "merge", "--print-boundary")
    assert done.returncode == 0, done.stderr
    line = json.loads(done.stdout)
    assert line["network"] == [world.server.url.split("://", 1)[1].split("/", 1)[0]]
    assert line["session_sandbox"] is None
