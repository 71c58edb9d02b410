"""The retry policy for forge requests: 5xx, dropped connections and rate limits.

A request that failed with `Transient` or `RateLimited` is tried again after a
wait: the forge's `Retry-After` when it sent one, else the time until
`X-RateLimit-Reset` for a rate limit, else an exponential backoff. The number
of tries and the longest wait are bounded; a rate limit that resets later than
`max_wait` is raised at once, so the orchestrator can hold instead of blocking.

Non-idempotent requests (creating a comment, an issue, a PR) are retried too.
A 502 may hide a request the forge did carry out, so a retry can duplicate a
comment; the pipeline tolerates that because every write it makes carries a
marker and is found again by it (the state comment is the lowest id, a claim
or a signed comment is looked up before it is posted), and a PR is found by
its head branch before one is created. Failing instead would stop the issue on
a blip, which costs more than a rare duplicate.

The clock and the sleep are parameters, so tests record the waits.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TypeVar

from conveyor.forge.errors import ForgeError, RateLimited, Transient

T = TypeVar("T")


def _utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry a forge request that failed transiently.

    `attempts` counts every try, the first included. Backoff waits are
    `backoff`, `2 * backoff`, ... capped at `max_backoff`. A wait longer than
    `max_wait` (a far rate-limit reset) is not slept: the error is raised.
    """

    attempts: int = 4
    backoff: float = 1.0
    max_backoff: float = 30.0
    max_wait: float = 120.0
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False)
    now: Callable[[], datetime] = field(default=_utc_now, repr=False)

    def __post_init__(self) -> None:
        if self.attempts < 1:
            msg = f"RetryPolicy.attempts: expected at least 1, got {self.attempts}"
            raise ValueError(msg)
        if self.backoff < 0 or self.max_backoff < 0 or self.max_wait < 0:
            msg = "RetryPolicy: backoff, max_backoff and max_wait must not be negative"
            raise ValueError(msg)

    def wait_before_retry(self, error: ForgeError, attempt: int) -> float | None:
        """Seconds to wait before try `attempt + 1` (0-based), or None to give up."""
        if attempt + 1 >= self.attempts:
            return None
        wait: float
        if isinstance(error, RateLimited):
            if error.retry_after is not None:
                wait = error.retry_after
            elif error.reset_at is not None:
                wait = max((error.reset_at - self.now()).total_seconds(), 0.0)
            else:
                wait = self._backoff(attempt)
        elif isinstance(error, Transient):
            wait = error.retry_after if error.retry_after is not None else self._backoff(attempt)
        else:
            return None
        wait = max(wait, 0.0)
        return wait if wait <= self.max_wait else None

    def _backoff(self, attempt: int) -> float:
        return float(min(self.backoff * 2**attempt, self.max_backoff))

    def run(self, call: Callable[[], T]) -> T:
        """Run `call`, retrying `Transient` and `RateLimited` failures as the policy says."""
        attempt = 0
        while True:
            try:
                return call()
            except (Transient, RateLimited) as error:
                wait = self.wait_before_retry(error, attempt)
                if wait is None:
                    raise
            self.sleep(wait)
            attempt += 1


NO_RETRY = RetryPolicy(attempts=1)
"""A policy that tries once: for tests that want to see the first failure."""
