"""A forge failure said as its cause, once, for a person setting Conveyor up (issue 48).

`doctor`, `run` and `tick` meet the same first-contact failures: a repository name that is
wrong (or one the token cannot see: GitHub answers 404 for both), a forge that does not
answer, a token it refuses. Each is one sentence naming the repository or the URL and
what to do, instead of the HTTP library's text or three symptoms of one cause.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from conveyor.core.config import Config
from conveyor.forge.errors import ForgeError, NotFound, RateLimited, Transient, Unauthorized


def unreachable(config: Config, why: str) -> str:
    """The forge at the config's URL does not answer; for the embedded forge, how to start it."""
    url = config.forge.api_url
    text = f"cannot reach the forge at {url} ({why})"
    if config.forge.kind == "local":
        port = urlsplit(url).port or 80
        text += f"; start the embedded forge: conveyor forge serve --data DIR --port {port}"
    return text + "; check forge.api_url"


def cause(error: ForgeError, config: Config) -> str:
    """What a failed forge call means for this configuration, as one line."""
    if isinstance(error, NotFound) and error.number is None:
        return (
            f"repository {config.repo} not found, or the token cannot see it: check `repo`"
            f" and that {config.account.login} can read it"
        )
    if isinstance(error, Unauthorized):
        return (
            f"the forge at {config.forge.api_url} refuses the token ({error.message}): check the"
            " token the config's [account] names"
        )
    if isinstance(error, Transient) and error.message.startswith("cannot reach"):
        return unreachable(config, error.message.rsplit(": ", 1)[-1])
    if isinstance(error, Transient) and "did not answer in time" in error.message:
        return unreachable(config, "no answer in time")
    if isinstance(error, RateLimited):
        until = f" until {error.reset_at.isoformat()}" if error.reset_at is not None else ""
        return f"the forge's rate limit is spent{until} ({error.message})"
    return str(error)
