"""Labels over HTTP: the repository's labels, and adding, setting and removing an issue's."""

from __future__ import annotations

import httpx

from tests.contract.emulator.conftest import World, set_issue_column
from tests.contract.emulator.openapi_check import check_error_shape

OLD = "2000-01-01T00:00:00Z"


def test_repository_labels_are_created_read_updated_and_deleted(
    world: World, owner: httpx.Client
) -> None:
    """Create (201), get by name, rename and recolour, list, delete (204)."""
    url = f"{world.repo_path}/labels"
    made = owner.post(
        url, json={"name": "agent:working", "color": "#1D76DB", "description": "busy"}
    )
    assert made.status_code == 201
    assert (made.json()["color"], made.json()["description"]) == ("1d76db", "busy")
    assert owner.get(f"{url}/agent:working").json()["name"] == "agent:working"
    patched = owner.patch(
        f"{url}/agent:working", json={"new_name": "agent:busy", "color": "ffffff"}
    )
    assert (patched.json()["name"], patched.json()["color"]) == ("agent:busy", "ffffff")
    assert [label["name"] for label in owner.get(url).json()] == ["agent:busy"]
    assert owner.delete(f"{url}/agent:busy").status_code == 204
    check_error_shape(owner.get(f"{url}/agent:busy"), 404)


def test_duplicate_or_malformed_labels_get_422(world: World, owner: httpx.Client) -> None:
    """A taken name (in any case) is `already_exists`; a bad colour or no name is 422."""
    url = f"{world.repo_path}/labels"
    owner.post(url, json={"name": "bug", "color": "ff0000"})
    dup = check_error_shape(owner.post(url, json={"name": "BUG", "color": "00ff00"}), 422)
    assert dup["errors"][0]["code"] == "already_exists"
    check_error_shape(owner.post(url, json={"name": "x", "color": "red"}), 422)
    check_error_shape(owner.post(url, json={"color": "ff0000"}), 422)


def test_only_writers_manage_labels(world: World) -> None:
    """A visitor gets 403 creating a label; without a token it is 401."""
    with world.client(world.visitor_token) as visitor:
        check_error_shape(visitor.post(f"{world.repo_path}/labels", json={"name": "v"}), 403)
    with world.client() as anonymous:
        check_error_shape(anonymous.post(f"{world.repo_path}/labels", json={"name": "v"}), 401)


def test_issue_labels_add_set_remove_and_clear(world: World, owner: httpx.Client) -> None:
    """POST adds (creating missing labels), PUT replaces, DELETE one or all."""
    number = owner.post(f"{world.repo_path}/issues", json={"title": "x"}).json()["number"]
    url = f"{world.repo_path}/issues/{number}/labels"
    added = owner.post(url, json={"labels": ["b", "a"]})
    assert [label["name"] for label in added.json()] == ["a", "b"]
    again = owner.post(url, json=["c"])
    assert [label["name"] for label in again.json()] == ["a", "b", "c"]
    replaced = owner.put(url, json={"labels": ["z"]})
    assert [label["name"] for label in replaced.json()] == ["z"]
    assert [label["name"] for label in owner.get(url).json()] == ["z"]
    assert owner.delete(f"{url}/z").json() == []
    owner.post(url, json={"labels": ["a"]})
    assert owner.delete(url).status_code == 204
    assert owner.get(url).json() == []


def test_removing_an_absent_label_is_404(world: World, owner: httpx.Client) -> None:
    """DELETE of a label the issue does not carry: 404 `Label does not exist`."""
    number = owner.post(f"{world.repo_path}/issues", json={"title": "x"}).json()["number"]
    gone = owner.delete(f"{world.repo_path}/issues/{number}/labels/nope")
    assert check_error_shape(gone, 404)["message"] == "Label does not exist"


def test_every_label_change_bumps_the_issue_updated_at(world: World, owner: httpx.Client) -> None:
    """Adding and removing a label each move the issue's updated_at."""
    number = owner.post(f"{world.repo_path}/issues", json={"title": "x"}).json()["number"]
    url = f"{world.repo_path}/issues/{number}"
    set_issue_column(world, number, "updated_at", OLD)
    owner.post(f"{url}/labels", json={"labels": ["a"]})
    assert owner.get(url).json()["updated_at"] != OLD
    set_issue_column(world, number, "updated_at", OLD)
    owner.delete(f"{url}/labels/a")
    assert owner.get(url).json()["updated_at"] != OLD


def test_labels_show_on_the_issue_and_filter_the_list(world: World, owner: httpx.Client) -> None:
    """A label with a slash in its name round-trips through the issue and the label path."""
    number = owner.post(f"{world.repo_path}/issues", json={"title": "x"}).json()["number"]
    owner.post(f"{world.repo_path}/issues/{number}/labels", json={"labels": ["area/forge"]})
    issue = owner.get(f"{world.repo_path}/issues/{number}").json()
    assert [label["name"] for label in issue["labels"]] == ["area/forge"]
    assert owner.get(f"{world.repo_path}/labels/area%2Fforge").json()["name"] == "area/forge"
    removed = owner.delete(f"{world.repo_path}/issues/{number}/labels/area%2Fforge")
    assert removed.json() == []
