"""Build the `Forge` a configuration names: its API URL, repository and credentials."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import httpx

from conveyor.core.config import Config
from conveyor.forge.credentials import CredentialsError, read_app_key, read_token
from conveyor.forge.github import AppIdentity, GitHubForge, app_forge, token_forge
from conveyor.forge.retry import RetryPolicy

__all__ = ["CredentialsError", "connect", "read_token"]


def connect(
    config: Config,
    env: Mapping[str, str],
    *,
    base_dir: Path | None = None,
    transport: httpx.BaseTransport | None = None,
    retry: RetryPolicy | None = None,
) -> GitHubForge:
    """The forge client for `config.repo` at `config.forge.api_url`, as the configured account.

    `env` supplies `account.token_env`; relative key and token files are read
    from `base_dir` (the config file's folder). `forge.kind = "local"` uses the
    same client: only the URL differs.
    """
    account = config.account
    url = config.forge.api_url
    if account.app is not None:
        app = account.app
        key = read_app_key(config, base_dir)
        identity = AppIdentity(app_id=app.id, slug=app.slug, installation_id=app.installation_id)
        return app_forge(config.repo, identity, key, base_url=url, transport=transport, retry=retry)
    token = read_token(config, env, base_dir)
    return token_forge(config.repo, token, base_url=url, transport=transport, retry=retry)
