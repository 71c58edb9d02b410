"""Reading a paged GitHub list through the client: every page, or page 1 conditionally."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from githubkit.response import Response

from conveyor.forge.github.base import ClientBase, has_next_page, if_none_match, items_of

M = TypeVar("M")
PER_PAGE = 100  # GitHub's largest page


class PagedOps(ClientBase):
    """The paging loops the groups of list operations share."""

    def _pages(
        self,
        operation: str,
        number: int | None,
        call: Callable[[int], Response[Any, Any]],
        model: type[M],
        *,
        start: int = 1,
        limit: int = 1000,
    ) -> list[M]:
        """The items of a paged list from page `start` until its last page (or page `limit`)."""
        found: list[M] = []
        for page in range(start, limit + 1):
            response = self._run(operation, number, lambda page=page: call(page))  # type: ignore[misc]
            found.extend(items_of(response, model))
            if not has_next_page(response.raw_response):
                break
        return found

    def _every(
        self,
        operation: str,
        number: int,
        method: Callable[..., Response[Any, Any]],
        model: type[M],
        *,
        limit: int = 1000,
    ) -> list[M]:
        """Every item of the list githubkit's `method` reads of issue or PR `number`."""
        owner, name = self._owner, self._name
        call = lambda page: method(owner, name, number, per_page=PER_PAGE, page=page)  # noqa: E731
        return self._pages(operation, number, call, model, limit=limit)

    def _pages_since(
        self,
        operation: str,
        number: int | None,
        call: Callable[[int, dict[str, str] | None], Response[Any, Any]],
        model: type[M],
        etag: str | None,
    ) -> tuple[list[M], Response[Any, Any]] | None:
        """A paged list whose page 1 is asked conditional on `etag`: every item and page 1's
        answer, or None when page 1 is not modified (a 304 costs no rate limit)."""
        first = self._run(operation, number, lambda: call(1, if_none_match(etag)))
        if first.status_code == 304:
            return None
        found = items_of(first, model)
        if has_next_page(first.raw_response):
            more = self._pages(operation, number, lambda p: call(p, None), model, start=2)
            found = [*found, *more]
        return found, first

    def _open_since(
        self,
        operation: str,
        method: Callable[..., Response[Any, Any]],
        model: type[M],
        etag: str | None,
    ) -> tuple[list[M], Response[Any, Any]] | None:
        """The open issues or PRs githubkit's `method` lists, most recently updated first,
        page 1 conditional on `etag` (`_pages_since`)."""

        def call(page: int, headers: dict[str, str] | None) -> Response[Any, Any]:
            return method(
                self._owner,
                self._name,
                state="open",
                sort="updated",
                direction="desc",
                per_page=PER_PAGE,
                page=page,
                headers=headers,
            )

        return self._pages_since(operation, None, call, model, etag)
