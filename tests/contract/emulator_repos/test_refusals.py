"""Bad requests to the git half get GitHub's status and error body, never a 500."""

from __future__ import annotations

import httpx
import pytest

from tests.contract.emulator.openapi_check import check_error_shape
from tests.contract.emulator_repos.conftest import GitWorld, open_pr

pytestmark = pytest.mark.contract


def test_malformed_and_unknown_requests_get_github_errors(
    gw: GitWorld, writer: httpx.Client
) -> None:
    """Broken JSON, wrong types, unknown numbers, refs and methods."""
    gw.push_branch("feature", {"n.txt": "n\n"}, "New")
    pr = open_pr(writer, gw, "feature")
    number = pr["number"]
    broken = writer.post(f"{gw.repo_path}/pulls", content=b"{not json")
    check_error_shape(broken, 400)
    typed = writer.post(
        f"{gw.repo_path}/pulls", json={"title": 5, "head": "feature", "base": "main"}
    )
    check_error_shape(typed, 422)
    check_error_shape(writer.patch(f"{gw.repo_path}/pulls/{number}", json={"state": "merged"}), 422)
    check_error_shape(writer.get(f"{gw.repo_path}/pulls/9999"), 404)
    check_error_shape(writer.put(f"{gw.repo_path}/pulls/9999/merge", json={}), 404)
    rebase = writer.put(f"{gw.repo_path}/pulls/{number}/merge", json={"merge_method": "rebase"})
    check_error_shape(rebase, 405)
    check_error_shape(writer.get("/repos/nobody/nothing/pulls"), 404)
    check_error_shape(writer.get(f"{gw.repo_path}/commits/no%00pe/check-runs"), 422)
    check_error_shape(writer.get(f"{gw.repo_path}/git/refs/heads/missing"), 404)
    check_error_shape(writer.post("/graphql", content=b"[1, 2]"), 400)


def test_a_draft_cannot_be_merged_and_a_reader_cannot_merge(
    gw: GitWorld, writer: httpx.Client
) -> None:
    """A draft PR answers 405; someone without push access gets 403."""
    head = gw.push_branch("feature", {"n.txt": "n\n"}, "New")
    pr = open_pr(writer, gw, "feature", draft=True)
    draft = writer.put(f"{gw.repo_path}/pulls/{pr['number']}/merge", json={"sha": head})
    assert "draft" in check_error_shape(draft, 405)["message"]
    reader_token = gw.server.add_user(f"reader-of-{gw.slug.replace('/', '-')}")
    with gw.client(reader_token) as reader:
        denied = reader.put(f"{gw.repo_path}/pulls/{pr['number']}/merge", json={"sha": head})
        check_error_shape(denied, 403)
        check_error_shape(reader.patch(f"{gw.repo_path}/pulls/{pr['number']}", json={}), 403)
