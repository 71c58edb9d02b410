"""Sub-issues over HTTP: added by id (not number), listed in order, parent, removal, priority."""

from __future__ import annotations

import httpx

from tests.contract.emulator.conftest import World
from tests.contract.emulator.openapi_check import check_error_shape


def _issues(world: World, owner: httpx.Client, count: int) -> list[dict[str, int]]:
    """`count` new issues as {number, id}."""
    made = [
        owner.post(f"{world.repo_path}/issues", json={"title": f"t{i}"}).json()
        for i in range(count)
    ]
    return [{"number": issue["number"], "id": issue["id"]} for issue in made]


def test_sub_issues_are_added_by_id_and_listed_with_their_parent(
    world: World, owner: httpx.Client
) -> None:
    """Adding by id answers 201 with the sub-issue; list, parent and summary agree."""
    parent, a, b = _issues(world, owner, 3)
    url = f"{world.repo_path}/issues/{parent['number']}/sub_issues"
    added = owner.post(url, json={"sub_issue_id": a["id"]})
    assert added.status_code == 201
    assert added.json()["number"] == a["number"]
    owner.post(url, json={"sub_issue_id": b["id"]})
    assert [i["number"] for i in owner.get(url).json()] == [a["number"], b["number"]]
    got_parent = owner.get(f"{world.repo_path}/issues/{a['number']}/parent").json()
    assert got_parent["number"] == parent["number"]
    summary = owner.get(f"{world.repo_path}/issues/{parent['number']}").json()["sub_issues_summary"]
    assert (summary["total"], summary["completed"]) == (2, 0)


def test_a_number_where_an_id_belongs_is_refused(world: World, owner: httpx.Client) -> None:
    """Passing the sub-issue's number finds no issue (404); a string is 422."""
    parent, child = _issues(world, owner, 2)
    url = f"{world.repo_path}/issues/{parent['number']}/sub_issues"
    check_error_shape(owner.post(url, json={"sub_issue_id": child["number"]}), 404)
    check_error_shape(owner.post(url, json={"sub_issue_id": str(child["id"])}), 422)
    check_error_shape(owner.post(url, json={}), 422)


def test_a_second_parent_needs_replace_parent(world: World, owner: httpx.Client) -> None:
    """A sub-issue with a parent is refused elsewhere unless `replace_parent` is true."""
    first, second, child = _issues(world, owner, 3)
    owner.post(
        f"{world.repo_path}/issues/{first['number']}/sub_issues", json={"sub_issue_id": child["id"]}
    )
    url = f"{world.repo_path}/issues/{second['number']}/sub_issues"
    check_error_shape(owner.post(url, json={"sub_issue_id": child["id"]}), 422)
    moved = owner.post(url, json={"sub_issue_id": child["id"], "replace_parent": True})
    assert moved.status_code == 201
    parent = owner.get(f"{world.repo_path}/issues/{child['number']}/parent").json()
    assert parent["number"] == second["number"]


def test_removing_a_sub_issue_detaches_it(world: World, owner: httpx.Client) -> None:
    """DELETE .../sub_issue answers the former sub-issue; its parent is then 404."""
    parent, child = _issues(world, owner, 2)
    base = f"{world.repo_path}/issues/{parent['number']}"
    owner.post(f"{base}/sub_issues", json={"sub_issue_id": child["id"]})
    removed = owner.request("DELETE", f"{base}/sub_issue", json={"sub_issue_id": child["id"]})
    assert removed.json()["number"] == child["number"]
    check_error_shape(owner.get(f"{world.repo_path}/issues/{child['number']}/parent"), 404)
    again = owner.request("DELETE", f"{base}/sub_issue", json={"sub_issue_id": child["id"]})
    check_error_shape(again, 404)


def test_priority_moves_a_sub_issue_before_a_sibling(world: World, owner: httpx.Client) -> None:
    """PATCH .../sub_issues/priority with before_id reorders the list."""
    parent, a, b, c = _issues(world, owner, 4)
    url = f"{world.repo_path}/issues/{parent['number']}/sub_issues"
    for child in (a, b, c):
        owner.post(url, json={"sub_issue_id": child["id"]})
    moved = owner.patch(f"{url}/priority", json={"sub_issue_id": c["id"], "before_id": a["id"]})
    assert moved.json()["number"] == parent["number"]
    assert [i["number"] for i in owner.get(url).json()] == [c["number"], a["number"], b["number"]]
    check_error_shape(owner.patch(f"{url}/priority", json={"sub_issue_id": c["id"]}), 422)
