"""`conveyor job --print-boundary`: the role, checkout, session environment names and network."""

from __future__ import annotations

import json

import pytest

from conveyor.testing.world import TOKEN_ENV, World

SECRETS = {
    "GH_TOKEN": "gh-secret-1",
    "GITHUB_TOKEN": "gh-secret-2",
    "CONVEYOR_TEST_SECRET": "canary-secret-3",
}


@pytest.mark.parametrize(
    ("stage", "role", "network"),
    [
        ("triage", "reader", ["api.anthropic.com"]),
        ("implement", "writer", ["api.anthropic.com", "pypi.org"]),
        ("merge", "merger", None),
    ],
)
def test_the_boundary_names_no_token_variable_and_the_roles_network(
    world: World, stage: str, role: str, network: list[str] | None
) -> None:
    """The boundary line lists sorted names only, none of them a token, and starts nothing."""
    world.extra_env.update(SECRETS | {"ANTHROPIC_API_KEY": "model-key", "LANG": "C.UTF-8"})
    done = world.job(1, stage, "--print-boundary")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1
    boundary = json.loads(lines[0])
    assert boundary["role"] == role
    names = boundary["env"]
    assert names == sorted(names)
    assert "ANTHROPIC_API_KEY" in names
    assert not {*SECRETS, TOKEN_ENV} & set(names)
    for value in [*SECRETS.values(), world.tokens["conveyor-bot"], "model-key"]:
        assert value not in done.stdout
    host = world.server.url.split("://", 1)[1]
    assert boundary["network"] == (network if network is not None else [host])
    assert boundary["checkout"].endswith("/repo")
    assert not (world.repo_home / "jobs").exists()
