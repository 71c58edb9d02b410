"""The GitHub client's core: the githubkit handle, the repository, and one call wrapper."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar, cast
from urllib.parse import quote

import httpx
from githubkit import GitHub
from githubkit.exception import GitHubException
from githubkit.response import Response
from pydantic import ValidationError as ModelError

from conveyor.forge.errors import ForgeError
from conveyor.forge.github.failure import to_forge_error
from conveyor.forge.retry import RatePause, RetryPolicy

T = TypeVar("T")
M = TypeVar("M")


@dataclass(frozen=True)
class AppIdentity:
    """The GitHub App the client acts as: it is `SLUG[bot]` through one installation."""

    app_id: int
    slug: str
    installation_id: int

    @property
    def login(self) -> str:
        """The login GitHub shows for the App's comments and PRs."""
        return f"{self.slug}[bot]"


class SharedTransport(httpx.BaseTransport):
    """Lends one transport (and its connection pool) to many short-lived clients.

    githubkit builds an httpx client per request outside a `with` block and
    closes it afterwards; closing would also close the pool. This wrapper keeps
    the pool open until the forge client itself is closed.
    """

    def __init__(self, inner: httpx.BaseTransport) -> None:
        self.inner = inner

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """Send through the shared transport."""
        return self.inner.handle_request(request)

    def close(self) -> None:
        """Keep the shared pool open: the owner closes it."""

    def close_shared(self) -> None:
        """Close the shared transport for good."""
        self.inner.close()


class ClientBase:
    """What every group of forge operations shares: the repository and `_run`."""

    def __init__(
        self,
        kit: GitHub[Any],
        repo: str,
        *,
        retry: RetryPolicy,
        transport: SharedTransport,
        app: AppIdentity | None = None,
    ) -> None:
        owner, _, name = repo.partition("/")
        if not owner or not name or "/" in name:
            msg = f"repository: expected OWNER/NAME, got {repo!r}"
            raise ValueError(msg)
        self._kit = kit
        self._owner = owner
        self._name = name
        self._retry = retry
        self._transport = transport
        self._app = app
        self._pause = RatePause()
        self._pr_nodes: dict[int, str] = {}  # a PR's GraphQL id never changes: kept when seen

    @property
    def repo(self) -> str:
        """The repository as `OWNER/NAME`."""
        return f"{self._owner}/{self._name}"

    @property
    def kit(self) -> GitHub[Any]:
        """The githubkit client, for calls the protocol does not cover (tests, admin)."""
        return self._kit

    def close(self) -> None:
        """Close the connection pool."""
        self._transport.close_shared()

    def _path(self, *parts: str) -> str:
        """`/repos/OWNER/NAME/...` with each part percent-encoded, `/` included.

        Refs and branch names keep their slashes by being passed split into parts.
        """
        tail = "/".join(quote(part, safe="") for part in parts)
        return f"/repos/{self._owner}/{self._name}/{tail}"

    def _run(self, operation: str, number: int | None, call: Callable[[], T]) -> T:
        """Run one request (and its parsing) under the retry policy, mapping its failures."""

        def attempt() -> T:
            try:
                result = call()
                if isinstance(result, Response) and result.status_code != 304 and result.content:
                    result.parsed_data  # noqa: B018  # parse now, so a bad body fails here, mapped
            except GitHubException as exc:
                raise to_forge_error(exc, operation, number) from exc
            except ModelError as exc:
                message = f"the response did not match GitHub's schema: {exc}"
                raise ForgeError(operation, number, message) from exc
            return result

        self._pause.honour(self._retry, operation, number)
        return self._retry.run(attempt, self._pause)


def has_next_page(response: httpx.Response) -> bool:
    """Whether GitHub's `Link` header points to a next page."""
    return 'rel="next"' in response.headers.get("link", "")


def if_none_match(etag: str | None) -> dict[str, str] | None:
    """The conditional-request header for `etag`, if there is one."""
    return {"If-None-Match": etag} if etag else None


def items_of(response: Response[Any, Any], model: type[M]) -> list[M]:
    """A list answer's parsed items as `model`.

    githubkit annotates list answers as `list[Model]` inside client classes
    that have a method named `list`, which mypy cannot resolve; githubkit has
    already validated every item against `model` when this is read.
    """
    return cast("list[M]", response.parsed_data)
