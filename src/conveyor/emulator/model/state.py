"""The running emulator's shared state: store, fault knobs, counters and lifecycle hooks.

Route modules reach it with `conveyor.emulator.model.http.emulator(request)`.
"""

from __future__ import annotations

import random
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from conveyor.core.pipeline_view import PipelineReader
from conveyor.core.transcript import Found
from conveyor.emulator.model.etag_cache import EtagCache
from conveyor.emulator.model.hook_queue import HookQueue
from conveyor.emulator.model.store import Store

# Path parts that are numbers or SHAs, folded so `by_route` groups one kind of request.
_FOLD = re.compile(r"(?<=/)(?:[0-9]+|[0-9a-f]{40})(?=/|$)")
RATE_LIMIT = 5000
ANONYMOUS_RATE_LIMIT = 60
RATE_WINDOW_S = 3600
# `owner/name` and an issue's number to its agent sessions: handed in by whoever builds the
# app (the CLI, the test harness), since the job folders' reader sits above the forge.
TranscriptReader = Callable[[str, int], Found]
REQUEST_LOG = 20_000  # the newest answered requests `GET /_conveyor/requests` lists


@dataclass
class SecondaryLimit:
    """Injected secondary rate limits: the next `count` requests (of `login`, or anyone's)
    are answered `status` with GitHub's message, and `Retry-After` when it is not None."""

    count: int = 0
    retry_after: int | None = 60
    status: int = 403
    login: str | None = None

    def json(self) -> dict[str, object]:
        """As `POST /_conveyor/knobs` takes and answers it."""
        return {
            "count": self.count,
            "retry_after": self.retry_after,
            "status": self.status,
            "login": self.login,
        }


@dataclass
class Knobs:
    """Fault knobs: the share of requests answered 502/429, how late new comments list,
    and injected secondary rate limits."""

    fail_rate: float = 0.0
    list_lag_ms: int = 0
    secondary: SecondaryLimit = field(default_factory=SecondaryLimit)


@dataclass
class Stats:
    """Request and rate-limit point counters (everything but `/_conveyor/*` counts)."""

    requests: int = 0
    points: int = 0
    not_modified: int = 0
    faults: int = 0
    by_status: dict[str, int] = field(default_factory=dict)
    by_method: dict[str, int] = field(default_factory=dict)
    by_route: dict[str, int] = field(default_factory=dict)
    # (epoch seconds, route, status) of the newest requests: a bench attributes them to jobs
    log: deque[tuple[float, str, int]] = field(default_factory=lambda: deque(maxlen=REQUEST_LOG))


@dataclass
class RateBucket:
    """One account's points in the current window."""

    window_start: float
    used: int = 0


@dataclass
class EmulatorState:
    """Everything the routes share; `on_shutdown` callables run when the server stops."""

    store: Store
    data_dir: Path
    knobs: Knobs
    rng: random.Random
    stats: Stats = field(default_factory=Stats)
    buckets: dict[int, RateBucket] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    on_shutdown: list[Callable[[], None]] = field(default_factory=list)
    etags: EtagCache = field(default_factory=EtagCache)
    pipeline: PipelineReader | None = None  # a Conveyor home's files, for the pipeline pages
    transcripts: TranscriptReader | None = None  # the issue pages' agent sessions
    hooks: HookQueue = field(default_factory=HookQueue)
    ci_network: str = "none"  # a repository's CI network when it names none (`ci_network.py`)

    def charge(self, user_id: int | None, *, costs: bool) -> tuple[int, int, int]:
        """Record one answer for `user_id` (None: anonymous); return (limit, used, reset)."""
        now = time.time()
        key = user_id if user_id is not None else 0
        limit = RATE_LIMIT if user_id is not None else ANONYMOUS_RATE_LIMIT
        with self.lock:
            bucket = self.buckets.get(key)
            if bucket is None or now >= bucket.window_start + RATE_WINDOW_S:
                bucket = RateBucket(window_start=now)
                self.buckets[key] = bucket
            if costs:
                bucket.used += 1
                if user_id is not None:
                    self.stats.points += 1
            return limit, bucket.used, int(bucket.window_start + RATE_WINDOW_S)

    def take_secondary(self, login: str | None) -> SecondaryLimit | None:
        """The injected secondary limit this request meets (counting it down), if any."""
        with self.lock:
            limit = self.knobs.secondary
            if limit.count <= 0 or (limit.login is not None and limit.login != login):
                return None
            limit.count -= 1
            return limit

    def count(self, method: str, status: int, *, fault: bool, path: str = "") -> None:
        """Count one answered request (`path` with its numbers and SHAs folded to `N`)."""
        route = f"{method} {_FOLD.sub('N', path)}"
        at = time.time()
        with self.lock:
            stats = self.stats
            stats.requests += 1
            stats.log.append((at, route, status))
            stats.by_route[route] = stats.by_route.get(route, 0) + 1
            stats.by_status[str(status)] = stats.by_status.get(str(status), 0) + 1
            stats.by_method[method] = stats.by_method.get(method, 0) + 1
            if status == 304:
                stats.not_modified += 1
            if fault:
                stats.faults += 1

    def requests_json(self) -> list[dict[str, object]]:
        """The newest answered requests, oldest first, as `GET /_conveyor/requests` lists them."""
        with self.lock:
            rows = list(self.stats.log)
        return [{"at": at, "route": route, "status": status} for at, route, status in rows]

    def stats_json(self) -> dict[str, object]:
        """The counters as `GET /_conveyor/stats` shows them."""
        with self.lock:
            stats = self.stats
            return {
                "requests": stats.requests,
                "points": stats.points,
                "not_modified": stats.not_modified,
                "faults": stats.faults,
                "by_status": dict(stats.by_status),
                "by_method": dict(stats.by_method),
                "by_route": dict(stats.by_route),
                "knobs": {
                    "fail_rate": self.knobs.fail_rate,
                    "list_lag_ms": self.knobs.list_lag_ms,
                    "secondary_limit": self.knobs.secondary.json(),
                },
            }
