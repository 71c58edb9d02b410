"""One home per backend: each name has one row of facts and one backend, and every table that
used to list the backends is drawn from them (#50)."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import pytest
from pydantic import ValidationError

from conveyor.agents.backends.registry import BACKENDS, DEFINITIONS, backend_for, transcript_reader
from conveyor.agents.environment import build_env
from conveyor.cli.demo.config import REAL_AGENTS
from conveyor.cli.demo.fake_agent import demo_model, fake_environ
from conveyor.core.backends import FACTS, NAMES, ROWS, SCRIPTED, BackendName, backend_of
from conveyor.core.config import AgentChoice, AgentName
from conveyor.sandbox.allowlist import model_hosts


def test_every_backend_name_has_exactly_one_row_and_one_backend_under_its_own_name() -> None:
    """The registry is exhaustive: a new `BackendName` without its row or module fails here."""
    assert set(FACTS) == set(NAMES) == set(BACKENDS)
    assert len(ROWS) == len(FACTS)
    assert len(DEFINITIONS) == len(BACKENDS)
    assert all(FACTS[name].name == name and BACKENDS[name].name == name for name in NAMES)
    assert set(get_args(AgentName)) == {*get_args(BackendName), SCRIPTED}


@pytest.mark.parametrize("name", NAMES)
def test_every_row_says_how_to_install_sign_in_reach_and_demo_its_cli(name: BackendName) -> None:
    """Each fact the runner, doctor, box and demo read is there for every backend."""
    row = FACTS[name]
    assert row.install
    assert row.sign_in
    assert row.status_args
    assert row.env_prefixes
    assert row.auth_files or row.state_files
    assert model_hosts(name, row.demo_model)
    assert demo_model(name) == row.demo_model
    assert row.demo_env.items() <= fake_environ().items()
    assert transcript_reader(name) is not None


def test_the_tables_drawn_from_the_rows_list_every_backend_and_nothing_else() -> None:
    """The demo's agents, the config's names, the scripted agent's CLI."""
    assert REAL_AGENTS == NAMES
    for name in NAMES:
        assert AgentChoice(agent=name).agent == name
    with pytest.raises(ValidationError, match="claude"):
        AgentChoice.model_validate({"agent": "gemini"})
    assert backend_of(SCRIPTED) in NAMES
    assert transcript_reader("gemini") is None
    with pytest.raises(ValueError, match="no agent backend is named 'gemini'"):
        backend_for("gemini")


def test_a_session_gets_its_own_providers_variables_only() -> None:
    """`env_prefixes`: claude's session sees no OpenAI key, codex's no Anthropic key."""
    environ = {"ANTHROPIC_API_KEY": "a", "OPENAI_API_KEY": "o", "OPENROUTER_API_KEY": "r"}
    seen = {name: {k for k in environ if k in _env(environ, name)} for name in NAMES}
    assert seen["claude"] == {"ANTHROPIC_API_KEY"}
    assert seen["codex"] == {"OPENAI_API_KEY"}
    assert seen["opencode"] == set(environ)
    assert not {k for k in environ if k in _env(environ, "")}


def _env(environ: dict[str, str], backend: str) -> dict[str, str]:
    return build_env(
        environ, backend=backend, home=Path("/h"), git_config=Path("/g"), conveyor_vars={}
    )


@pytest.mark.parametrize(
    ("model", "hosts"),
    [
        ("openai/gpt-5", ("api.openai.com",)),
        ("google/gemini-2.5-pro", ("generativelanguage.googleapis.com",)),
        ("claude-sonnet-4-5", ("api.anthropic.com",)),
        ("mystery/model", ()),
    ],
)
def test_opencodes_hosts_follow_its_models_provider(model: str, hosts: tuple[str, ...]) -> None:
    """A provider no row knows reaches no host (the owner adds it to `allow_hosts`)."""
    assert model_hosts("opencode", model) == hosts
