"""Issues over HTTP: create, read, list with filters and pages, update, close and reopen."""

from __future__ import annotations

import httpx

from conveyor.emulator.model.records import create_issue_row
from conveyor.emulator.model.store import Store
from tests.contract.emulator.conftest import World, set_issue_column
from tests.contract.emulator.openapi_check import check_error_shape


def test_created_issue_is_authored_by_the_token_user_and_read_back(
    world: World, owner: httpx.Client
) -> None:
    """Creating an issue answers 201 with its number, id, author and a Location."""
    with world.client(world.visitor_token) as visitor:
        made = visitor.post(f"{world.repo_path}/issues", json={"title": "Bug", "body": "It broke"})
    assert made.status_code == 201
    issue = made.json()
    assert issue["user"]["login"] == world.visitor
    assert issue["state"] == "open"
    assert issue["id"] != issue["number"]
    assert made.headers["Location"] == issue["url"]
    got = owner.get(f"{world.repo_path}/issues/{issue['number']}").json()
    assert (got["title"], got["body"], got["id"]) == ("Bug", "It broke", issue["id"])


def test_issue_numbers_count_up_per_repository(world: World, owner: httpx.Client) -> None:
    """Consecutive issues get consecutive numbers starting at 1."""
    numbers = [
        owner.post(f"{world.repo_path}/issues", json={"title": f"t{i}"}).json()["number"]
        for i in range(3)
    ]
    assert numbers == [1, 2, 3]


def test_closing_sets_reason_and_closed_at_and_reopening_clears_them(
    world: World, owner: httpx.Client
) -> None:
    """Close with `not_planned`, then reopen: state, state_reason and closed_at follow."""
    number = owner.post(f"{world.repo_path}/issues", json={"title": "x"}).json()["number"]
    url = f"{world.repo_path}/issues/{number}"
    closed = owner.patch(url, json={"state": "closed", "state_reason": "not_planned"}).json()
    assert (closed["state"], closed["state_reason"]) == ("closed", "not_planned")
    assert closed["closed_at"] is not None
    assert closed["closed_by"]["login"] == world.owner
    reopened = owner.patch(url, json={"state": "open"}).json()
    assert (reopened["state"], reopened["state_reason"], reopened["closed_at"]) == (
        "open",
        "reopened",
        None,
    )


def test_list_filters_by_state_and_labels_and_pages_with_links(
    world: World, owner: httpx.Client
) -> None:
    """`state`, `labels` and `per_page` filter and page; Link names next and last."""
    for i in range(5):
        labels = ["bug"] if i % 2 == 0 else []
        owner.post(f"{world.repo_path}/issues", json={"title": f"t{i}", "labels": labels})
    owner.patch(f"{world.repo_path}/issues/5", json={"state": "closed"})
    page1 = owner.get(f"{world.repo_path}/issues", params={"per_page": 2, "sort": "created"})
    assert [i["number"] for i in page1.json()] == [4, 3]
    assert 'rel="next"' in page1.headers["Link"]
    assert 'rel="last"' in page1.headers["Link"]
    last = owner.get(f"{world.repo_path}/issues", params={"per_page": 2, "page": 2})
    assert [i["number"] for i in last.json()] == [2, 1]
    assert 'rel="prev"' in last.headers["Link"]
    assert 'rel="next"' not in last.headers["Link"]
    bugs = owner.get(f"{world.repo_path}/issues", params={"labels": "bug", "state": "all"})
    assert sorted(i["number"] for i in bugs.json()) == [1, 3, 5]
    closed = owner.get(f"{world.repo_path}/issues", params={"state": "closed"})
    assert [i["number"] for i in closed.json()] == [5]


def test_list_sorts_by_updated_and_honours_since(world: World, owner: httpx.Client) -> None:
    """`sort=updated&direction=asc` orders by updated_at; `since` drops older issues."""
    for i, stamp in enumerate(["2020-01-03T00:00:00Z", "2020-01-01T00:00:00Z"]):
        owner.post(f"{world.repo_path}/issues", json={"title": f"t{i}"})
        set_issue_column(world, i + 1, "updated_at", stamp)
    params = {"sort": "updated", "direction": "asc"}
    ordered = owner.get(f"{world.repo_path}/issues", params=params).json()
    assert [i["number"] for i in ordered] == [2, 1]
    since = owner.get(f"{world.repo_path}/issues", params={"since": "2020-01-02T00:00:00Z"})
    assert [i["number"] for i in since.json()] == [1]


def test_issue_list_includes_pull_requests_with_a_pull_request_key(
    world: World, owner: httpx.Client
) -> None:
    """A PR's issue row is listed with `pull_request`, as GitHub lists it."""
    store = Store.open(world.server.data_dir)
    repo = store.one(
        "SELECT repos.id, owner_id FROM repos JOIN users ON users.id = owner_id "
        "WHERE login = ? AND name = ?",
        (world.owner, world.name),
    )
    assert repo is not None
    with store.tx() as conn:
        create_issue_row(
            store, conn, repo["id"], title="PR", body=None, author_id=repo["owner_id"], is_pull=True
        )
    listed = owner.get(f"{world.repo_path}/issues").json()
    assert len(listed) == 1
    assert listed[0]["pull_request"]["url"].endswith(f"/pulls/{listed[0]['number']}")


def test_unknown_issue_and_repository_are_404(world: World, owner: httpx.Client) -> None:
    """Unknown numbers, repositories and paths answer GitHub's 404."""
    check_error_shape(owner.get(f"{world.repo_path}/issues/999"), 404)
    check_error_shape(owner.get("/repos/nobody/nothing/issues"), 404)
    check_error_shape(owner.patch(f"{world.repo_path}/issues/999", json={"title": "x"}), 404)
    check_error_shape(owner.get(f"{world.repo_path}/issues/abc"), 404)


def test_bad_bodies_are_400_or_422_never_500(world: World, owner: httpx.Client) -> None:
    """Malformed JSON is 400; a missing title, wrong types or a bad state are 422."""
    url = f"{world.repo_path}/issues"
    bad = owner.post(url, content=b"{not json", headers={"Content-Type": "application/json"})
    assert check_error_shape(bad, 400)["message"] == "Problems parsing JSON"
    missing = check_error_shape(owner.post(url, json={"body": "no title"}), 422)
    assert missing["errors"][0]["field"] == "title"
    check_error_shape(owner.post(url, json={"title": 12}), 422)
    check_error_shape(owner.post(url, json={"title": "x", "labels": "bug"}), 422)
    number = owner.post(url, json={"title": "ok"}).json()["number"]
    check_error_shape(owner.patch(f"{url}/{number}", json={"state": "gone"}), 422)
    check_error_shape(owner.patch(f"{url}/{number}", json={"state_reason": "whatever"}), 422)
    check_error_shape(owner.get(url, params={"state": "sideways"}), 422)


def test_bodies_over_65536_characters_are_refused(world: World, owner: httpx.Client) -> None:
    """An issue body of 65,537 characters gets 422; 65,536 is accepted."""
    url = f"{world.repo_path}/issues"
    check_error_shape(owner.post(url, json={"title": "big", "body": "x" * 65537}), 422)
    assert owner.post(url, json={"title": "max", "body": "x" * 65536}).status_code == 201


def test_visitors_cannot_edit_others_issues_or_set_labels(
    world: World, owner: httpx.Client
) -> None:
    """A visitor's labels on create are dropped; editing the owner's issue is 403."""
    with world.client(world.visitor_token) as visitor:
        made = visitor.post(f"{world.repo_path}/issues", json={"title": "v", "labels": ["bug"]})
        assert made.json()["labels"] == []
        number = owner.post(f"{world.repo_path}/issues", json={"title": "o"}).json()["number"]
        check_error_shape(
            visitor.patch(f"{world.repo_path}/issues/{number}", json={"title": "z"}), 403
        )
        own = visitor.patch(
            f"{world.repo_path}/issues/{made.json()['number']}", json={"title": "w"}
        )
    assert own.json()["title"] == "w"


def test_huge_numbers_in_paths_pages_and_ids_are_refused_cleanly(
    world: World, owner: httpx.Client
) -> None:
    """Numbers beyond 64 bits get 404 or 422 (or are clamped), never a 500."""
    huge = "9" * 25
    number = owner.post(f"{world.repo_path}/issues", json={"title": "x"}).json()["number"]
    check_error_shape(owner.get(f"{world.repo_path}/issues/{huge}"), 404)
    check_error_shape(owner.get(f"{world.repo_path}/issues/comments/{huge}"), 404)
    assert owner.get(f"{world.repo_path}/issues", params={"page": huge}).json() == []
    sub = owner.post(
        f"{world.repo_path}/issues/{number}/sub_issues", json={"sub_issue_id": int(huge)}
    )
    check_error_shape(sub, 422)
