"""Branch protection: admin-only writes, `behind` only under strict checks, required checks."""

from __future__ import annotations

import httpx
import pytest

from tests.contract.emulator.openapi_check import check_error_shape
from tests.contract.emulator_repos.conftest import GitWorld, open_pr, settled

pytestmark = pytest.mark.contract


def _protect(
    client: httpx.Client, gw: GitWorld, *, strict: bool, contexts: list[str]
) -> httpx.Response:
    return client.put(
        f"{gw.repo_path}/branches/main/protection",
        json={
            "required_status_checks": {"strict": strict, "contexts": contexts},
            "enforce_admins": None,
            "required_pull_request_reviews": None,
            "restrictions": None,
        },
    )


def _behind_pr(gw: GitWorld, writer: httpx.Client) -> int:
    """A PR whose base moved on (without conflict) after the branch was cut."""
    gw.push_branch("feature", {"new.txt": "new\n"}, "Add new")
    gw.push_branch("main", {"other.txt": "other\n"}, "Move main on")
    return int(open_pr(writer, gw, "feature")["number"])


def test_a_behind_branch_reads_clean_when_main_is_unprotected(
    gw: GitWorld, writer: httpx.Client
) -> None:
    """As on GitHub, without strict protection being behind does not matter."""
    number = _behind_pr(gw, writer)
    assert settled(writer, gw, number)["mergeable_state"] == "clean"
    branch = writer.get(f"{gw.repo_path}/branches/main").json()
    assert branch["protected"] is False


def test_a_behind_branch_reads_behind_under_strict_protection_and_cannot_merge(
    gw: GitWorld, writer: httpx.Client, admin: httpx.Client
) -> None:
    """Strict required checks make a behind branch `behind`; the merge is refused."""
    number = _behind_pr(gw, writer)
    assert _protect(admin, gw, strict=True, contexts=[]).status_code == 200
    assert settled(writer, gw, number)["mergeable_state"] == "behind"
    refused = writer.put(f"{gw.repo_path}/pulls/{number}/merge", json={})
    assert "not up to date" in check_error_shape(refused, 405)["message"]


def test_only_an_admin_can_protect_and_the_policy_reads_back(
    gw: GitWorld, writer: httpx.Client, admin: httpx.Client
) -> None:
    """A writer gets 403; the admin's policy reads back and can be patched and removed."""
    check_error_shape(_protect(writer, gw, strict=True, contexts=["ci"]), 403)
    check_error_shape(writer.get(f"{gw.repo_path}/branches/main/protection"), 404)
    assert _protect(admin, gw, strict=False, contexts=["ci"]).status_code == 200
    policy = writer.get(f"{gw.repo_path}/branches/main/protection/required_status_checks").json()
    assert (policy["strict"], policy["contexts"]) == (False, ["ci"])
    patched = admin.patch(
        f"{gw.repo_path}/branches/main/protection/required_status_checks",
        json={"strict": True, "checks": [{"context": "ci"}, {"context": "lint"}]},
    ).json()
    assert (patched["strict"], patched["contexts"]) == (True, ["ci", "lint"])
    branch = writer.get(f"{gw.repo_path}/branches/main").json()
    assert branch["protected"] is True
    assert branch["protection"]["required_status_checks"]["contexts"] == ["ci", "lint"]
    full = admin.get(f"{gw.repo_path}/branches/main/protection").json()
    assert full["required_status_checks"]["strict"] is True
    assert admin.delete(f"{gw.repo_path}/branches/main/protection").status_code == 204
    assert writer.get(f"{gw.repo_path}/branches/main").json()["protected"] is False
    check_error_shape(admin.get(f"{gw.repo_path}/branches/nope/protection"), 404)


def test_a_required_check_blocks_the_merge_until_it_passes(
    gw: GitWorld, writer: httpx.Client, admin: httpx.Client
) -> None:
    """Required `ci`: expected, then failing, then success lets the merge through."""
    head = gw.push_branch("feature", {"new.txt": "new\n"}, "Add new")
    number = open_pr(writer, gw, "feature")["number"]
    _protect(admin, gw, strict=False, contexts=["ci"])
    assert settled(writer, gw, number)["mergeable_state"] == "blocked"
    expected = writer.put(f"{gw.repo_path}/pulls/{number}/merge", json={"sha": head})
    assert "expected" in check_error_shape(expected, 405)["message"]
    run = writer.post(
        f"{gw.repo_path}/check-runs",
        json={"name": "ci", "head_sha": head, "status": "completed", "conclusion": "failure"},
    ).json()
    failing = writer.put(f"{gw.repo_path}/pulls/{number}/merge", json={"sha": head})
    assert "failing" in check_error_shape(failing, 405)["message"]
    writer.patch(f"{gw.repo_path}/check-runs/{run['id']}", json={"conclusion": "success"})
    assert writer.get(f"{gw.repo_path}/pulls/{number}").json()["mergeable_state"] == "clean"
    merged = writer.put(f"{gw.repo_path}/pulls/{number}/merge", json={"sha": head})
    assert merged.status_code == 200, merged.text
