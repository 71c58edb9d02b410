"""Build the `Forge` a configuration names: its API URL, repository and credentials."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import httpx

from conveyor.core.config import Config
from conveyor.forge.github import AppIdentity, GitHubForge, app_forge, token_forge
from conveyor.forge.retry import RetryPolicy


class CredentialsError(ValueError):
    """The configured way to get the pipeline's token does not give one; says which key."""


def _read_file(path_text: str, key: str, base_dir: Path | None) -> str:
    path = Path(path_text).expanduser()
    if not path.is_absolute() and base_dir is not None:
        path = base_dir / path
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        msg = f"{key}: cannot read {path}: {exc.strerror or exc}"
        raise CredentialsError(msg) from exc


def read_token(config: Config, env: Mapping[str, str], base_dir: Path | None = None) -> str:
    """The personal access token from `account.token_env` or `account.token_file`."""
    account = config.account
    if account.token_env is not None:
        token = env.get(account.token_env, "").strip()
        if not token:
            msg = f"account.token_env: the environment variable {account.token_env} is not set"
            raise CredentialsError(msg)
        return token
    if account.token_file is not None:
        token = _read_file(account.token_file, "account.token_file", base_dir)
        if not token:
            msg = f"account.token_file: {account.token_file} is empty"
            raise CredentialsError(msg)
        return token
    msg = "account: no token_env or token_file (a GitHub App has no personal token)"
    raise CredentialsError(msg)


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
        key = _read_file(app.private_key_file, "account.app.private_key_file", base_dir)
        if "PRIVATE KEY" not in key:
            msg = f"account.app.private_key_file: {app.private_key_file} is not a PEM private key"
            raise CredentialsError(msg)
        identity = AppIdentity(app_id=app.id, slug=app.slug, installation_id=app.installation_id)
        return app_forge(config.repo, identity, key, base_url=url, transport=transport, retry=retry)
    token = read_token(config, env, base_dir)
    return token_forge(config.repo, token, base_url=url, transport=transport, retry=retry)
