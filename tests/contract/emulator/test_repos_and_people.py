"""The repository, `/user`, collaborators and permissions over HTTP."""

from __future__ import annotations

import httpx

from tests.contract.emulator.conftest import World
from tests.contract.emulator.openapi_check import check_error_shape


def test_repository_reports_default_branch_clone_url_and_wiki(
    world: World, owner: httpx.Client
) -> None:
    """The repository's JSON names its owner, default branch and file:// clone URL."""
    repo = owner.get(world.repo_path).json()
    assert repo["owner"]["login"] == world.owner
    assert repo["default_branch"] == "main"
    assert repo["clone_url"].startswith("file://")
    assert repo["clone_url"].endswith(f"/git/{world.owner}/{world.name}.git")
    assert repo["has_wiki"] is False
    check_error_shape(owner.get(f"/repos/{world.owner}/missing"), 404)


def test_get_user_answers_the_token_owner(world: World, owner: httpx.Client) -> None:
    """`GET /user` is the private view of the token's user."""
    me = owner.get("/user").json()
    assert (me["login"], me["type"]) == (world.owner, "User")


def test_collaborators_are_listed_and_checked(world: World, owner: httpx.Client) -> None:
    """The owner and the writer are collaborators (204); the visitor is not (404)."""
    listed = owner.get(f"{world.repo_path}/collaborators").json()
    assert {c["login"]: c["role_name"] for c in listed} == {
        world.owner: "admin",
        world.writer: "write",
    }
    for login, status in ((world.owner, 204), (world.writer, 204), (world.visitor, 404)):
        assert owner.get(f"{world.repo_path}/collaborators/{login}").status_code == status
    check_error_shape(owner.get(f"{world.repo_path}/collaborators/nobody-at-all"), 404)


def test_permission_reports_admin_write_and_read(world: World, owner: httpx.Client) -> None:
    """Owner is admin, writer is write, a visitor reads a public repository."""
    for login, permission in (
        (world.owner, "admin"),
        (world.writer, "write"),
        (world.visitor, "read"),
    ):
        answer = owner.get(f"{world.repo_path}/collaborators/{login}/permission").json()
        assert (answer["permission"], answer["user"]["login"]) == (permission, login)


def test_admins_add_and_remove_collaborators_over_http(world: World, owner: httpx.Client) -> None:
    """PUT adds the visitor (204), DELETE removes them; a writer may not do either."""
    url = f"{world.repo_path}/collaborators/{world.visitor}"
    with world.client(world.writer_token) as writer:
        check_error_shape(writer.put(url, json={"permission": "push"}), 403)
    assert owner.put(url, json={"permission": "push"}).status_code == 204
    assert owner.get(url).status_code == 204
    assert owner.delete(url).status_code == 204
    assert owner.get(url).status_code == 404
