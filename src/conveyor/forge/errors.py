"""The forge's error tree: every adapter failure the pipeline can see.

    ForgeError                  base: names the operation and the issue or PR number
     +-- NotFound               404: no such issue, PR, comment, branch, label
     +-- Conflict               409: e.g. the PR head moved (expected SHA differs)
     +-- NotMergeable           405: the merge would conflict or is not allowed
     +-- Validation             422: GitHub's error list is kept in `errors`
     |    +-- DraftsRefused     422: this repository takes no draft PRs (private, Free/Pro)
     +-- Unauthorized           401/403 without a rate limit: bad or missing token
     +-- RateLimited            429 or 403 with a rate limit (primary or secondary)
     +-- Transient              5xx, timeouts, connection resets

Expected outcomes (a PR that is not mergeable yet, a red check) are values,
not these errors; these are for the cases where the forge said no.
"""

from __future__ import annotations

from datetime import datetime


class ForgeError(Exception):
    """A forge call failed; `operation` and `number` say which and where."""

    def __init__(self, operation: str, number: int | None, message: str) -> None:
        self.operation = operation
        self.number = number
        self.message = message
        where = f" (#{number})" if number is not None else ""
        super().__init__(f"{operation}{where}: {message}")


class NotFound(ForgeError):
    """The forge has no such object (404)."""


class Conflict(ForgeError):
    """The object changed under us, e.g. the head SHA moved (409)."""


class NotMergeable(ForgeError):
    """The merge was refused: it conflicts or is not allowed (405)."""


class Validation(ForgeError):
    """The forge rejected the request's content (422)."""

    def __init__(
        self, operation: str, number: int | None, message: str, errors: tuple[str, ...] = ()
    ) -> None:
        self.errors = errors
        detail = f"{message}: {'; '.join(errors)}" if errors else message
        super().__init__(operation, number, detail)


class DraftsRefused(Validation):
    """The repository takes no draft PRs (GitHub Free and Pro plans' private repositories)."""


class Unauthorized(ForgeError):
    """The token is missing, invalid or lacks the permission (401/403)."""


class RateLimited(ForgeError):
    """The rate limit is spent until `reset_at`.

    `retry_after` is the forge's `Retry-After` in seconds when it sent one; the
    retry policy prefers it over `reset_at`. `secondary` marks GitHub's secondary
    limits (too many requests at once, or too fast): their `reset_at` is None, as
    the primary bucket's reset says nothing about them.
    """

    def __init__(
        self,
        operation: str,
        number: int | None,
        message: str,
        reset_at: datetime | None,
        retry_after: float | None = None,
        *,
        secondary: bool = False,
    ) -> None:
        self.reset_at = reset_at
        self.retry_after = retry_after
        self.secondary = secondary
        super().__init__(operation, number, message)


class Transient(ForgeError):
    """A failure worth retrying: 5xx, a timeout, a dropped connection.

    `retry_after` is the forge's `Retry-After` in seconds when it sent one.
    """

    def __init__(
        self, operation: str, number: int | None, message: str, retry_after: float | None = None
    ) -> None:
        self.retry_after = retry_after
        super().__init__(operation, number, message)
