"""Check runs and commit statuses reported on a commit."""

from __future__ import annotations

import httpx
import pytest

from conveyor.testing import http
from tests.contract.emulator.openapi_check import check_error_shape
from tests.contract.emulator_repos.conftest import GitWorld

pytestmark = pytest.mark.contract


def test_check_runs_move_from_queued_to_completed_and_list_newest_per_name(
    gw: GitWorld, writer: httpx.Client
) -> None:
    """Create, update with a conclusion, and list by SHA or branch (latest per name)."""
    sha = writer.get(f"{gw.repo_path}/branches/main").json()["commit"]["sha"]
    made = writer.post(f"{gw.repo_path}/check-runs", json={"name": "lint", "head_sha": sha})
    assert made.status_code == 201
    run = made.json()
    assert (run["status"], run["conclusion"], run["started_at"]) == ("queued", None, None)
    done = writer.patch(
        f"{gw.repo_path}/check-runs/{run['id']}",
        json={"conclusion": "success", "output": {"title": "Lint", "summary": "all good"}},
    ).json()
    assert (done["status"], done["conclusion"]) == ("completed", "success")
    assert done["output"]["summary"] == "all good"
    assert done["completed_at"] is not None
    writer.post(f"{gw.repo_path}/check-runs", json={"name": "lint", "head_sha": sha})
    latest = writer.get(f"{gw.repo_path}/commits/main/check-runs").json()
    assert latest["total_count"] == 1
    assert latest["check_runs"][0]["status"] == "queued"
    every = writer.get(f"{gw.repo_path}/commits/{sha}/check-runs", params={"filter": "all"})
    assert every.json()["total_count"] == 2
    assert writer.get(f"{gw.repo_path}/check-runs/{run['id']}").json()["conclusion"] == "success"


def test_bad_check_runs_are_refused(gw: GitWorld, writer: httpx.Client) -> None:
    """Unknown commits, completed without a conclusion and bad enums get 422; readers 401/404."""
    sha = writer.get(f"{gw.repo_path}/branches/main").json()["commit"]["sha"]
    unknown = writer.post(f"{gw.repo_path}/check-runs", json={"name": "x", "head_sha": "f" * 40})
    check_error_shape(unknown, 422)
    no_conclusion = writer.post(
        f"{gw.repo_path}/check-runs", json={"name": "x", "head_sha": sha, "status": "completed"}
    )
    check_error_shape(no_conclusion, 422)
    bad = writer.post(
        f"{gw.repo_path}/check-runs", json={"name": "x", "head_sha": sha, "conclusion": "great"}
    )
    check_error_shape(bad, 422)
    check_error_shape(writer.get(f"{gw.repo_path}/check-runs/999999"), 404)
    anonymous = http.post(
        f"{gw.server.url}{gw.repo_path}/check-runs", json={"name": "x", "head_sha": sha}
    )
    assert anonymous.status_code == 401


def test_statuses_combine_to_the_worst_newest_state_per_context(
    gw: GitWorld, writer: httpx.Client
) -> None:
    """Pending with no statuses; success when all pass; failure when one context fails."""
    sha = writer.get(f"{gw.repo_path}/branches/main").json()["commit"]["sha"]
    assert writer.get(f"{gw.repo_path}/commits/{sha}/status").json()["state"] == "pending"
    made = writer.post(
        f"{gw.repo_path}/statuses/{sha}", json={"state": "pending", "context": "build"}
    )
    assert made.status_code == 201
    writer.post(f"{gw.repo_path}/statuses/{sha}", json={"state": "success", "context": "build"})
    combined = writer.get(f"{gw.repo_path}/commits/main/status").json()
    assert (combined["state"], combined["total_count"]) == ("success", 1)
    writer.post(f"{gw.repo_path}/statuses/{sha}", json={"state": "failure", "context": "docs"})
    assert writer.get(f"{gw.repo_path}/commits/{sha}/status").json()["state"] == "failure"
    listed = writer.get(f"{gw.repo_path}/commits/{sha}/statuses").json()
    assert [s["state"] for s in listed] == ["failure", "success", "pending"]
    bad = writer.post(f"{gw.repo_path}/statuses/{sha}", json={"state": "fine"})
    check_error_shape(bad, 422)


def test_a_commit_the_forge_lacks_has_no_statuses_and_no_combined_status(
    gw: GitWorld, writer: httpx.Client
) -> None:
    """As GitHub's description says: its status list is empty (200) and its combined status 404."""
    unknown = "f" * 40
    listed = writer.get(f"{gw.repo_path}/commits/{unknown}/statuses")
    assert listed.status_code == 200
    assert listed.json() == []
    check_error_shape(writer.get(f"{gw.repo_path}/commits/{unknown}/status"), 404)
    check_error_shape(writer.get(f"{gw.repo_path}/commits/no-such-branch/status"), 404)
