"""The issue list's ETag: any change a poller must see gives a fresh 200, even within a second."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from conveyor.emulator.model.admin import add_collaborator
from tests.contract.emulator.conftest import World

POLL: dict[str, str | int] = {
    "per_page": 100,
    "sort": "updated",
    "direction": "desc",
    "state": "open",
}


def _poll(client: httpx.Client, world: World, etag: str | None = None) -> httpx.Response:
    """One poll of the open issue list, conditional when `etag` is given."""
    headers = {"If-None-Match": etag} if etag else {}
    return client.get(f"{world.repo_path}/issues", params=POLL, headers=headers)


def _recolour_label(world: World, client: httpx.Client, number: int) -> None:
    """Change the colour of a label the issue carries (the issue itself is not touched)."""
    client.patch(f"{world.repo_path}/labels/bug", json={"color": "00ff00"})


def _new_collaborator(world: World, client: httpx.Client, number: int) -> None:
    """Make the issue's author a collaborator through another store (as the CLI would)."""
    add_collaborator(world.server.data_dir, world.slug, world.visitor)


CHANGES: dict[str, Callable[[World, httpx.Client, int], object]] = {
    "comment added": lambda w, c, n: c.post(
        f"{w.repo_path}/issues/{n}/comments", json={"body": "more"}
    ).raise_for_status(),
    "body edited": lambda w, c, n: c.patch(
        f"{w.repo_path}/issues/{n}", json={"body": "new text"}
    ).raise_for_status(),
    "label removed": lambda w, c, n: c.delete(
        f"{w.repo_path}/issues/{n}/labels/bug"
    ).raise_for_status(),
    "label recoloured": _recolour_label,
    "title edited": lambda w, c, n: c.patch(
        f"{w.repo_path}/issues/{n}", json={"title": "renamed"}
    ).raise_for_status(),
    "issue closed": lambda w, c, n: c.patch(
        f"{w.repo_path}/issues/{n}", json={"state": "closed"}
    ).raise_for_status(),
    "collaborator added elsewhere": _new_collaborator,
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_every_change_to_a_listed_issue_gives_a_fresh_200(
    world: World, owner: httpx.Client, change: str
) -> None:
    """A poll right after the change (same second) gets the new list, not a 304."""
    with world.client(world.visitor_token) as visitor:
        number = visitor.post(f"{world.repo_path}/issues", json={"title": "x"}).json()["number"]
    owner.post(f"{world.repo_path}/issues/{number}/labels", json={"labels": ["bug"]})
    first = _poll(owner, world)
    assert _poll(owner, world, first.headers["ETag"]).status_code == 304
    CHANGES[change](world, owner, number)
    fresh = _poll(owner, world, first.headers["ETag"])
    assert fresh.status_code == 200
    assert fresh.headers["ETag"] != first.headers["ETag"]
    assert fresh.json() != first.json()


def test_a_remembered_tag_still_answers_only_its_own_url(world: World, owner: httpx.Client) -> None:
    """The tag of one page or filter does not make another one a 304."""
    owner.post(f"{world.repo_path}/issues", json={"title": "x"})
    tag = _poll(owner, world).headers["ETag"]
    closed = owner.get(
        f"{world.repo_path}/issues", params={"state": "closed"}, headers={"If-None-Match": tag}
    )
    assert closed.status_code == 200
    assert closed.json() == []


def test_a_stale_tag_after_a_change_and_back_is_a_200_with_the_tag_of_the_body(
    world: World, owner: httpx.Client
) -> None:
    """A tag the caller holds is only honoured when it is the tag of the current body."""
    number = owner.post(f"{world.repo_path}/issues", json={"title": "a"}).json()["number"]
    old = _poll(owner, world).headers["ETag"]
    owner.patch(f"{world.repo_path}/issues/{number}", json={"title": "b"})
    new = _poll(owner, world).headers["ETag"]
    again = _poll(owner, world, old)
    assert again.status_code == 200
    assert again.headers["ETag"] == new
    assert _poll(owner, world, new).status_code == 304
