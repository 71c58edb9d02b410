"""Reading the pipeline's credentials a configuration names (no network, no githubkit)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from conveyor.core.config import AccountConfig, Config


class CredentialsError(ValueError):
    """The configured way to get the pipeline's token does not give one; says which key."""


def read_file(path_text: str, key: str, base_dir: Path | None) -> str:
    """The stripped text of a credentials file (relative to `base_dir`); the error names `key`."""
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
    return account_token(config.account, env, base_dir)


def account_token(account: AccountConfig, env: Mapping[str, str], base_dir: Path | None) -> str:
    """The personal access token the `[account]` table names (`read_token`)."""
    if account.token_env is not None:
        token = env.get(account.token_env, "").strip()
        if not token:
            msg = f"account.token_env: the environment variable {account.token_env} is not set"
            raise CredentialsError(msg)
        return token
    if account.token_file is not None:
        token = read_file(account.token_file, "account.token_file", base_dir)
        if not token:
            msg = f"account.token_file: {account.token_file} is empty"
            raise CredentialsError(msg)
        return token
    msg = "account: no token_env or token_file (a GitHub App has no personal token)"
    raise CredentialsError(msg)


def read_app_key(config: Config, base_dir: Path | None = None) -> str:
    """The PEM private key of the configured GitHub App (`account.app` must be set)."""
    return app_key(config.account, base_dir)


def app_key(account: AccountConfig, base_dir: Path | None) -> str:
    """The PEM private key of the `[account.app]` table (`read_app_key`)."""
    app = account.app
    assert app is not None
    key = read_file(app.private_key_file, "account.app.private_key_file", base_dir)
    if "PRIVATE KEY" not in key:
        msg = f"account.app.private_key_file: {app.private_key_file} is not a PEM private key"
        raise CredentialsError(msg)
    return key


def check_credentials(
    config: Config, env: Mapping[str, str], base_dir: Path | None = None
) -> str | None:
    """Why the configured credentials cannot be read, or None when they can."""
    return account_problem(config.account, env, base_dir)


def account_problem(
    account: AccountConfig, env: Mapping[str, str], base_dir: Path | None = None
) -> str | None:
    """Why the `[account]` table's credentials cannot be read, or None when they can (also
    when the rest of the config is wrong: every mistake is reported in one pass)."""
    try:
        if account.app is not None:
            app_key(account, base_dir)
        else:
            account_token(account, env, base_dir)
    except CredentialsError as exc:
        return str(exc)
    return None
