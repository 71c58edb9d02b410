"""Branches and git refs through the REST API."""

from __future__ import annotations

import httpx
import pytest

from conveyor.testing import http
from tests.contract.emulator.openapi_check import check_error_shape
from tests.contract.emulator_repos.conftest import GitWorld, open_pr

pytestmark = pytest.mark.contract


def test_a_branch_shows_its_commit(gw: GitWorld, writer: httpx.Client) -> None:
    """`GET branches/{b}` names the head commit, including for names with slashes."""
    sha = gw.push_branch("agent/issue-3", {"n.txt": "n\n"}, "Work on 3")
    branch = writer.get(f"{gw.repo_path}/branches/agent/issue-3").json()
    assert branch["name"] == "agent/issue-3"
    assert branch["commit"]["sha"] == sha
    assert branch["commit"]["commit"]["message"] == "Work on 3"
    check_error_shape(writer.get(f"{gw.repo_path}/branches/missing"), 404)


def test_refs_are_created_moved_and_deleted(gw: GitWorld, writer: httpx.Client) -> None:
    """POST, GET, PATCH (fast-forward unless forced) and DELETE of `heads/...` refs."""
    base = writer.get(f"{gw.repo_path}/branches/main").json()["commit"]["sha"]
    made = writer.post(f"{gw.repo_path}/git/refs", json={"ref": "refs/heads/copy", "sha": base})
    assert made.status_code == 201
    assert made.json()["object"]["sha"] == base
    for bad in ("refs/heads/bad name", "heads/x", "refs/heads/a..b", "refs/heads/x.lock"):
        refused = writer.post(f"{gw.repo_path}/git/refs", json={"ref": bad, "sha": base})
        assert check_error_shape(refused, 422)["message"] == "Reference name is invalid"
    dup = writer.post(f"{gw.repo_path}/git/refs", json={"ref": "refs/heads/copy", "sha": base})
    assert check_error_shape(dup, 422)["message"] == "Reference already exists"
    ahead = gw.push_branch("ahead", {"a.txt": "a\n"}, "Ahead")
    moved = writer.patch(f"{gw.repo_path}/git/refs/heads/copy", json={"sha": ahead})
    assert moved.json()["object"]["sha"] == ahead
    back = writer.patch(f"{gw.repo_path}/git/refs/heads/copy", json={"sha": base})
    assert check_error_shape(back, 422)["message"] == "Update is not a fast forward"
    forced = writer.patch(f"{gw.repo_path}/git/refs/heads/copy", json={"sha": base, "force": True})
    assert forced.status_code == 200
    assert writer.get(f"{gw.repo_path}/git/refs/heads/copy").json()["object"]["sha"] == base
    assert writer.delete(f"{gw.repo_path}/git/refs/heads/copy").status_code == 204
    gone = writer.delete(f"{gw.repo_path}/git/refs/heads/copy")
    assert check_error_shape(gone, 422)["message"] == "Reference does not exist"
    anonymous = http.delete(f"{gw.server.url}{gw.repo_path}/git/refs/heads/ahead")
    assert anonymous.status_code == 401


def test_deleting_a_pr_head_through_the_api_closes_the_pr(
    gw: GitWorld, writer: httpx.Client
) -> None:
    """As on GitHub, a PR whose head branch is deleted is closed."""
    gw.push_branch("doomed", {"d.txt": "d\n"}, "Doomed")
    pr = open_pr(writer, gw, "doomed")
    assert writer.delete(f"{gw.repo_path}/git/refs/heads/doomed").status_code == 204
    assert writer.get(f"{gw.repo_path}/pulls/{pr['number']}").json()["state"] == "closed"
