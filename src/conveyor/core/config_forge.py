"""The config's forge and account: which forge to talk to, and how the pipeline signs in."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ValidatorFunctionWrapHandler, field_validator, model_validator

from conveyor.core.config_terms import Strict, validate_beside


class ForgeConfig(Strict):
    """Which forge to talk to: GitHub, or the embedded forge (`local`).

    `local` only changes defaults; the client and its code path are the same.
    """

    kind: Literal["github", "local"] = "github"
    api_url: str = "https://api.github.com"

    @field_validator("api_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            msg = f"expected an http:// or https:// URL, got {value!r}"
            raise ValueError(msg)
        return value.rstrip("/")

    @property
    def web_url(self) -> str:
        """Where people read the forge's pages: GitHub's for its API (`api.github.com`, an
        Enterprise server's `/api/v3`), the embedded forge's own address (it serves both)."""
        if self.kind == "local":
            return self.api_url
        if self.api_url == "https://api.github.com":
            return "https://github.com"
        return self.api_url.removesuffix("/api/v3")

    @model_validator(mode="before")
    @classmethod
    def _local_needs_url(cls, data: object) -> object:
        # The embedded forge has no well-known address: falling back to
        # api.github.com would send the local token to GitHub.
        if isinstance(data, dict) and data.get("kind") == "local" and "api_url" not in data:
            msg = 'kind = "local" needs api_url (the embedded forge\'s URL)'
            raise ValueError(msg)
        return data


class AppAuth(Strict):
    """GitHub App credentials: the pipeline acts as `SLUG[bot]`."""

    id: int
    private_key_file: str
    installation_id: int
    slug: str


class AccountConfig(Strict):
    """The pipeline's own account and how to get its token (exactly one way)."""

    login: str
    token_env: str | None = None
    token_file: str | None = None
    app: AppAuth | None = None

    @model_validator(mode="wrap")
    @classmethod
    def _one_token_source(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        problem = None
        if isinstance(data, dict):
            given = [n for n in ("token_env", "token_file", "app") if data.get(n) is not None]
            if len(given) != 1:
                problem = (
                    "expected exactly one of token_env, token_file or app, "
                    f"got {', '.join(given) or 'none'}"
                )
        return validate_beside(data, handler, problem)
