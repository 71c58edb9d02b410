"""Building the forge client from a configuration: where the token comes from, and its errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from conveyor.core.config import Config
from conveyor.forge.connect import CredentialsError, connect
from tests.unit.forge.scripted import example


def _config(account: dict[str, Any]) -> Config:
    return Config.model_validate(
        {
            "repo": "o/r",
            "forge": {"kind": "local", "api_url": "http://forge.test/"},
            "account": {"login": "conveyor-bot", **account},
            "allowed_users": ["alice"],
            "commands": {"test": "pytest"},
        }
    )


def _authorization_sent(config: Config, env: dict[str, str], base_dir: Path | None) -> str:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers.get("authorization", ""))
        return httpx.Response(200, json=example("issue"))

    with connect(config, env, base_dir=base_dir, transport=httpx.MockTransport(handler)) as forge:
        forge.get_issue(1347)
    return seen[0]


def test_the_token_comes_from_the_named_environment_variable() -> None:
    """`token_env` names the variable; its value is the token sent."""
    config = _config({"token_env": "CONVEYOR_TOKEN"})
    assert _authorization_sent(config, {"CONVEYOR_TOKEN": "abc"}, None) == "token abc"


def test_a_relative_token_file_is_read_beside_the_config(tmp_path: Path) -> None:
    """`token_file` is read relative to the config's folder, whitespace stripped."""
    (tmp_path / "token").write_text("xyz\n")
    config = _config({"token_file": "token"})
    assert _authorization_sent(config, {}, tmp_path) == "token xyz"


def test_an_unset_token_variable_is_named_in_the_error() -> None:
    """A missing variable fails before any request, naming the key and the variable."""
    with pytest.raises(CredentialsError, match=r"account\.token_env: .*CONVEYOR_TOKEN is not set"):
        connect(_config({"token_env": "CONVEYOR_TOKEN"}), {})


def test_an_unreadable_token_file_is_named_in_the_error(tmp_path: Path) -> None:
    """A token file that is not there fails naming the key and the path."""
    with pytest.raises(CredentialsError, match=r"account\.token_file: cannot read .*missing"):
        connect(_config({"token_file": "missing"}), {}, base_dir=tmp_path)


def test_an_app_key_that_is_not_a_pem_key_is_refused(tmp_path: Path) -> None:
    """A GitHub App's private key file must hold a PEM private key."""
    (tmp_path / "app.pem").write_text("not a key")
    app = {"id": 1, "private_key_file": str(tmp_path / "app.pem"), "installation_id": 2}
    with pytest.raises(CredentialsError, match=r"account\.app\.private_key_file"):
        connect(_config({"app": {**app, "slug": "conveyor"}}), {})
