"""The GitHub client: the `Forge` protocol over githubkit, for api.github.com or any base URL."""

from conveyor.forge.github.base import AppIdentity
from conveyor.forge.github.client import GitHubForge, app_forge, token_forge

__all__ = ["AppIdentity", "GitHubForge", "app_forge", "token_forge"]
