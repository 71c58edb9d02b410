"""Assignees and milestones over HTTP: set on create or edit, added and removed, listed."""

from __future__ import annotations

import httpx

from tests.contract.emulator.conftest import World
from tests.contract.emulator.openapi_check import check_error_shape


def _milestone(world: World, owner: httpx.Client, title: str) -> int:
    made = owner.post(f"{world.repo_path}/milestones", json={"title": title})
    assert made.status_code == 201
    number: int = made.json()["number"]
    return number


def test_milestones_are_created_listed_and_refused_twice(world: World, owner: httpx.Client) -> None:
    """201 with a number; listed; the same title again is 422 `already_exists`."""
    assert _milestone(world, owner, "v1") == 1
    assert _milestone(world, owner, "v2") == 2
    listed = owner.get(f"{world.repo_path}/milestones").json()
    assert [m["title"] for m in listed] == ["v1", "v2"]
    again = owner.post(f"{world.repo_path}/milestones", json={"title": "v1"})
    assert check_error_shape(again, 422)["errors"][0]["code"] == "already_exists"


def test_an_issue_opened_with_assignees_and_a_milestone_shows_them(
    world: World, owner: httpx.Client
) -> None:
    """A writer's assignees and milestone stick; the issue list carries them too."""
    number = _milestone(world, owner, "v1")
    made = owner.post(
        f"{world.repo_path}/issues",
        json={"title": "x", "assignees": [world.writer, world.visitor], "milestone": number},
    ).json()
    assert [a["login"] for a in made["assignees"]] == [world.writer]  # a visitor cannot be
    assert made["assignee"]["login"] == world.writer
    assert made["milestone"]["title"] == "v1"
    assert made["milestone"]["open_issues"] == 1
    listed = owner.get(f"{world.repo_path}/issues").json()
    assert [(i["milestone"]["title"], len(i["assignees"])) for i in listed] == [("v1", 1)]


def test_a_visitor_sets_neither_assignees_nor_a_milestone(
    world: World, owner: httpx.Client
) -> None:
    """As on GitHub, what only writers may set is dropped from a visitor's new issue."""
    number = _milestone(world, owner, "v1")
    with world.client(world.visitor_token) as visitor:
        made = visitor.post(
            f"{world.repo_path}/issues",
            json={"title": "x", "assignees": [world.writer], "milestone": number},
        ).json()
    assert (made["assignees"], made["milestone"]) == ([], None)


def test_assignees_are_added_removed_and_a_milestone_edited_away(
    world: World, owner: httpx.Client
) -> None:
    """POST adds (201), DELETE removes; PATCH `milestone: null` takes it out."""
    number = _milestone(world, owner, "v1")
    issue = owner.post(f"{world.repo_path}/issues", json={"title": "x", "milestone": number})
    url = f"{world.repo_path}/issues/{issue.json()['number']}"
    added = owner.post(f"{url}/assignees", json={"assignees": [world.owner, world.writer]})
    assert added.status_code == 201
    assert [a["login"] for a in added.json()["assignees"]] == sorted([world.owner, world.writer])
    left = owner.request("DELETE", f"{url}/assignees", json={"assignees": [world.owner]})
    assert [a["login"] for a in left.json()["assignees"]] == [world.writer]
    edited = owner.patch(url, json={"milestone": None}).json()
    assert edited["milestone"] is None
    check_error_shape(owner.patch(url, json={"milestone": 99}), 422)


def test_only_writers_assign(world: World, owner: httpx.Client) -> None:
    """A visitor's POST of assignees is 403."""
    number = owner.post(f"{world.repo_path}/issues", json={"title": "x"}).json()["number"]
    with world.client(world.visitor_token) as visitor:
        refused = visitor.post(
            f"{world.repo_path}/issues/{number}/assignees", json={"assignees": [world.writer]}
        )
    check_error_shape(refused, 403)
