"""Comments over HTTP: list, create, get, edit (same id), delete, and the issue's updated_at."""

from __future__ import annotations

import httpx

from tests.contract.emulator.conftest import World, set_issue_column
from tests.contract.emulator.openapi_check import check_error_shape

OLD = "2000-01-01T00:00:00Z"


def _issue(world: World, owner: httpx.Client) -> int:
    """A new issue's number, its updated_at set far in the past."""
    issue = owner.post(f"{world.repo_path}/issues", json={"title": "talk"}).json()
    set_issue_column(world, issue["number"], "updated_at", OLD)
    return int(issue["number"])


def _updated_at(owner: httpx.Client, world: World, number: int) -> str:
    """The issue's updated_at as the API reports it."""
    return str(owner.get(f"{world.repo_path}/issues/{number}").json()["updated_at"])


def test_comments_are_created_listed_and_fetched_by_id(world: World, owner: httpx.Client) -> None:
    """A visitor's comment is listed after the owner's, and readable by id without a token."""
    number = _issue(world, owner)
    url = f"{world.repo_path}/issues/{number}/comments"
    first = owner.post(url, json={"body": "first"})
    assert first.status_code == 201
    with world.client(world.visitor_token) as visitor:
        second = visitor.post(url, json={"body": "second"}).json()
    listed = owner.get(url).json()
    assert [(c["body"], c["user"]["login"]) for c in listed] == [
        ("first", world.owner),
        ("second", world.visitor),
    ]
    assert listed[0]["author_association"] == "OWNER"
    assert listed[1]["author_association"] == "NONE"
    with world.client() as anonymous:
        got = anonymous.get(f"{world.repo_path}/issues/comments/{second['id']}").json()
    assert got["body"] == "second"
    assert _updated_at(owner, world, number) != OLD


def test_editing_a_comment_keeps_its_id_and_bumps_the_issue(
    world: World, owner: httpx.Client
) -> None:
    """PATCH changes the body under the same id and moves the issue's updated_at."""
    number = _issue(world, owner)
    made = owner.post(f"{world.repo_path}/issues/{number}/comments", json={"body": "v1"}).json()
    set_issue_column(world, number, "updated_at", OLD)
    edited = owner.patch(f"{world.repo_path}/issues/comments/{made['id']}", json={"body": "v2"})
    assert (edited.json()["id"], edited.json()["body"]) == (made["id"], "v2")
    assert _updated_at(owner, world, number) != OLD


def test_deleting_a_comment_removes_it_and_bumps_the_issue(
    world: World, owner: httpx.Client
) -> None:
    """DELETE answers 204; the comment is gone from the list and by id."""
    number = _issue(world, owner)
    made = owner.post(f"{world.repo_path}/issues/{number}/comments", json={"body": "x"}).json()
    set_issue_column(world, number, "updated_at", OLD)
    assert owner.delete(f"{world.repo_path}/issues/comments/{made['id']}").status_code == 204
    assert owner.get(f"{world.repo_path}/issues/{number}/comments").json() == []
    check_error_shape(owner.get(f"{world.repo_path}/issues/comments/{made['id']}"), 404)
    assert _updated_at(owner, world, number) != OLD


def test_only_the_author_or_a_writer_may_edit_a_comment(world: World, owner: httpx.Client) -> None:
    """A visitor cannot edit the owner's comment (403); the writer can."""
    number = _issue(world, owner)
    made = owner.post(f"{world.repo_path}/issues/{number}/comments", json={"body": "x"}).json()
    url = f"{world.repo_path}/issues/comments/{made['id']}"
    with world.client(world.visitor_token) as visitor:
        check_error_shape(visitor.patch(url, json={"body": "hijack"}), 403)
        check_error_shape(visitor.delete(url), 403)
    with world.client(world.writer_token) as writer:
        assert writer.patch(url, json={"body": "tidied"}).json()["body"] == "tidied"


def test_comment_errors_are_github_shaped(world: World, owner: httpx.Client) -> None:
    """Missing issue or comment: 404; missing or oversized body: 422; locked issue: 403."""
    number = _issue(world, owner)
    url = f"{world.repo_path}/issues/{number}/comments"
    check_error_shape(owner.post(f"{world.repo_path}/issues/999/comments", json={"body": "x"}), 404)
    check_error_shape(owner.get(f"{world.repo_path}/issues/999/comments"), 404)
    check_error_shape(owner.patch(f"{world.repo_path}/issues/comments/1", json={"body": "x"}), 404)
    check_error_shape(owner.post(url, json={}), 422)
    check_error_shape(owner.post(url, json={"body": ["x"]}), 422)
    check_error_shape(owner.post(url, json={"body": "x" * 65537}), 422)
    set_issue_column(world, number, "locked", 1)
    with world.client(world.visitor_token) as visitor:
        check_error_shape(visitor.post(url, json={"body": "x"}), 403)


def test_comment_list_pages_with_link_headers(world: World, owner: httpx.Client) -> None:
    """Three comments at per_page=2: page 1 links to page 2, which holds the third."""
    number = _issue(world, owner)
    url = f"{world.repo_path}/issues/{number}/comments"
    for i in range(3):
        owner.post(url, json={"body": f"c{i}"})
    first = owner.get(url, params={"per_page": 2})
    assert [c["body"] for c in first.json()] == ["c0", "c1"]
    next_url = first.links["next"]["url"]
    assert [c["body"] for c in owner.get(next_url).json()] == ["c2"]
