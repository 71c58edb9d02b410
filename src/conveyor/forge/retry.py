"""The retry policy for forge requests: 5xx, dropped connections and rate limits.

A request that failed with `Transient` or `RateLimited` is tried again after a
wait: the forge's `Retry-After` when it sent one, else the time until
`X-RateLimit-Reset` for a primary rate limit, at least a minute (doubling) for a
secondary one, else an exponential backoff. The number of tries and the longest
wait are bounded; a rate limit that resets later than `max_wait` is raised at
once, so the orchestrator can hold instead of blocking.

A rate limit, primary or secondary, also pauses the client (`RatePause`): until
it ends, the client's next calls wait it out (or are refused at once, without a
request, when the end is further than `max_wait`), as GitHub asks of clients
that met a limit.

Non-idempotent requests (creating a comment, an issue, a PR) are retried too.
A 502 may hide a request the forge did carry out, so a retry can duplicate a
comment; the pipeline tolerates that because every write it makes carries a
marker and is found again by it (the state comment is the lowest id, a claim
or a signed comment is looked up before it is posted), and a PR is found by
its head branch before one is created. Failing instead would stop the issue on
a blip, which costs more than a rare duplicate.

The clock and the sleep are parameters, so tests record the waits. `stop`, when given,
says a person asked the process to stop (`conveyor run`'s Ctrl-C): from then on a wait
before a retry is cut short and the failure raised, so the loop around it sees the
request fail at once instead of seconds of backoff later.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TypeVar

from conveyor.forge.errors import ForgeError, RateLimited, Transient

T = TypeVar("T")
STOP_CHECK_S = 0.1


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
    secondary_wait: float = 60.0
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False)
    now: Callable[[], datetime] = field(default=_utc_now, repr=False)
    stop: Callable[[], bool] | None = field(default=None, repr=False)

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
            wait = self.limit_wait(error, attempt)
        elif isinstance(error, Transient):
            wait = error.retry_after if error.retry_after is not None else self._backoff(attempt)
        else:
            return None
        wait = max(wait, 0.0)
        return wait if wait <= self.max_wait else None

    def limit_wait(self, error: RateLimited, attempt: int) -> float:
        """How long a rate limit lasts as far as the client can tell (seconds, not negative).

        GitHub asks for at least a minute, doubling, after a secondary limit that
        sent no `Retry-After`.
        """
        if error.retry_after is not None:
            return max(error.retry_after, 0.0)
        if error.reset_at is not None:
            return max((error.reset_at - self.now()).total_seconds(), 0.0)
        if error.secondary:
            return float(self.secondary_wait * 2**attempt)
        return self._backoff(attempt)

    def _backoff(self, attempt: int) -> float:
        return float(min(self.backoff * 2**attempt, self.max_backoff))

    def wait(self, seconds: float) -> bool:
        """Sleep `seconds` (in slices of at most `STOP_CHECK_S` while `stop` is watched);
        False when `stop` said to stop before or during the wait."""
        if self.stop is None:
            self.sleep(seconds)
            return True
        deadline = time.monotonic() + seconds
        while not self.stop():
            left = deadline - time.monotonic()
            if left <= 0:
                return True
            self.sleep(min(left, STOP_CHECK_S))
        return False

    def run(self, call: Callable[[], T], pause: RatePause | None = None) -> T:
        """Run `call`, retrying `Transient` and `RateLimited` failures as the policy says.

        With a `pause`, a rate limit given up on pauses the client until it ends.
        """
        attempt = 0
        while True:
            try:
                return call()
            except (Transient, RateLimited) as error:
                wait = self.wait_before_retry(error, attempt)
                if wait is None:
                    if isinstance(error, RateLimited) and pause is not None:
                        ends = self.now() + timedelta(seconds=self.limit_wait(error, attempt))
                        pause.hold(ends, error)
                    raise
                if not self.wait(wait):
                    raise
            attempt += 1


class RatePause:
    """One client's pause after a rate limit: until `until`, it sends nothing.

    `honour` runs before every call: it returns at once when no pause holds,
    sleeps out a pause that ends within the policy's `max_wait`, and otherwise
    raises `RateLimited` for the call without sending it.
    """

    def __init__(self) -> None:
        self.until: datetime | None = None
        self.cause: RateLimited | None = None

    def hold(self, until: datetime, cause: RateLimited) -> None:
        """Pause until `until` (a later pause already held wins)."""
        if self.until is None or until > self.until:
            self.until, self.cause = until, cause

    def honour(self, policy: RetryPolicy, operation: str, number: int | None) -> None:
        """Wait out the pause, or refuse `operation` at once when it lasts beyond `max_wait`
        (or the policy's `stop` cut the wait short)."""
        if self.until is None or self.cause is None:
            return
        left = (self.until - policy.now()).total_seconds()
        if left <= 0:
            self.until = self.cause = None
            return
        cause, until = self.cause, self.until
        if left <= policy.max_wait:
            self.until = self.cause = None  # slept out here: a fixed test clock must not loop
            if policy.wait(left):
                return
        message = f"paused by a rate limit until {until:%H:%M:%S} UTC ({cause.message})"
        raise RateLimited(
            operation,
            number,
            message,
            reset_at=until,
            retry_after=left,
            secondary=cause.secondary,
        )


NO_RETRY = RetryPolicy(attempts=1)
"""A policy that tries once: for tests that want to see the first failure."""
