"""`conveyor doctor`'s sign-in check, asking each real CLI as a session would be asked."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conveyor.cli.doctor_signin import check_signed_in
from conveyor.core.config import Config
from tests.contract.realcli.clis import cli_path
from tests.e2e.realcli.agents import CLIS, IDS, Cli

pytestmark = [pytest.mark.contract, pytest.mark.realcli]


def _config(cli: Cli, clis_bin: Path, base_url: str | None = None) -> Config:
    agent = {
        "agent": cli.backend,
        "model": cli.model,
        "executable": str(cli_path(clis_bin, cli.backend)),
    }
    if base_url:
        agent["base_url"] = base_url
    return Config.model_validate(
        {
            "repo": "acme/widgets",
            "account": {"login": "conveyor-bot", "token_env": "CONVEYOR_TOKEN"},
            "allowed_users": ["alice"],
            "commands": {"test": "pytest -q"},
            "agents": {"default": agent},
        }
    )


def _environ(tmp_path: Path, **keys: str) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {"PATH": os.environ["PATH"], "HOME": str(home), **keys}


@pytest.mark.parametrize("cli", CLIS, ids=IDS)
def test_a_cli_with_its_key_passes_and_one_without_fails_naming_how_to_sign_in(
    cli: Cli, clis_bin: Path, tmp_path: Path
) -> None:
    """The key a session would get is the key the status command sees; none is a FAIL."""
    url = "http://127.0.0.1:9" if cli.backend == "codex" else None
    config = _config(cli, clis_bin, url)
    keys = {"ANTHROPIC_API_KEY": "fake-key", "OPENAI_API_KEY": "fake-key"}
    (signed_in,) = check_signed_in(config, _environ(tmp_path, **keys))
    assert signed_in.ok, signed_in.detail
    (signed_out,) = check_signed_in(config, _environ(tmp_path))
    assert not signed_out.ok
    assert "login" in signed_out.detail, signed_out.detail
