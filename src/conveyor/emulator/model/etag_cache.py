"""Cheap conditional answers: a list's ETag remembered against the store's version.

A poller's `If-None-Match` usually names the tag of an unchanged list. Building the
list (issues, labels, counts, users) and hashing it costs far more than checking
that nothing was committed since that tag was computed; `conditional` answers 304
from the remembered tag in that case and builds the body otherwise.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from starlette.requests import Request
from starlette.responses import Response

MAX_ENTRIES = 512


@dataclass(frozen=True)
class Remembered:
    """The tag (and Link header) a URL answered with at one store version."""

    version: tuple[int, int, int]
    etag: str
    link: str | None


class EtagCache:
    """The last tag of each URL, least recently used dropped first."""

    def __init__(self) -> None:
        self._entries: OrderedDict[str, Remembered] = OrderedDict()

    def get(self, key: str) -> Remembered | None:
        """The remembered answer for `key`, if any."""
        entry = self._entries.get(key)
        if entry is not None:
            self._entries.move_to_end(key)
        return entry

    def put(self, key: str, entry: Remembered) -> None:
        """Remember `entry` for `key`."""
        self._entries[key] = entry
        self._entries.move_to_end(key)
        while len(self._entries) > MAX_ENTRIES:
            self._entries.popitem(last=False)


def _wanted(request: Request) -> set[str]:
    """The tags of `If-None-Match`, without their weak prefix."""
    header = request.headers.get("if-none-match", "")
    return {tag.strip().removeprefix("W/") for tag in header.split(",")} - {""}


class Versioned(Protocol):
    """What `conditional` needs of the store."""

    def version(self) -> tuple[int, int, int]:
        """A value that changes with every commit."""
        ...


def conditional(
    request: Request, store: Versioned, cache: EtagCache, build: Callable[[], Response]
) -> Response:
    """`build()`'s answer, or a 304 when nothing changed since the tag the caller holds.

    Only for answers that depend on nothing but the URL and the store (not the caller,
    not the clock).
    """
    key = str(request.url)
    version = store.version()  # read before building: a later commit misses
    wanted = _wanted(request)
    entry = cache.get(key)
    held = entry is not None and (entry.etag.removeprefix("W/") in wanted or "*" in wanted)
    if entry is not None and held and entry.version == version:
        headers = {"ETag": entry.etag}
        if entry.link is not None:
            headers["Link"] = entry.link
        return Response(status_code=304, headers=headers)
    response = build()
    etag = response.headers.get("etag")
    if response.status_code == 200 and etag is not None:
        cache.put(key, Remembered(version, etag, response.headers.get("link")))
    return response
