"""GraphQL: ready-for-review flips a draft; other documents are validated against GitHub's."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from graphql import GraphQLSchema

from conveyor.emulator.app.server import ForgeServer
from conveyor.emulator.graphql import endpoint as graphql
from conveyor.testing import http
from tests.contract.emulator_repos.conftest import GitWorld, open_pr, settled

pytestmark = pytest.mark.contract

READY = """
mutation Ready($id: ID!) {
  markPullRequestReadyForReview(input: {pullRequestId: $id}) {
    pullRequest { id number isDraft state }
  }
}
"""


def test_mark_ready_for_review_flips_draft(gw: GitWorld, writer: httpx.Client) -> None:
    """The mutation answers the requested fields and the REST PR is no longer a draft."""
    gw.push_branch("feature", {"new.txt": "new\n"}, "Add new")
    pr = open_pr(writer, gw, "feature", draft=True)
    assert settled(writer, gw, pr["number"])["mergeable_state"] == "draft"
    answer = writer.post("/graphql", json={"query": READY, "variables": {"id": pr["node_id"]}})
    assert answer.status_code == 200
    data = answer.json()
    assert "errors" not in data
    assert data["data"]["markPullRequestReadyForReview"]["pullRequest"] == {
        "id": pr["node_id"],
        "number": pr["number"],
        "isDraft": False,
        "state": "OPEN",
    }
    assert writer.get(f"{gw.repo_path}/pulls/{pr['number']}").json()["draft"] is False


def test_someone_without_push_access_cannot_mark_a_pr_ready(
    gw: GitWorld, writer: httpx.Client
) -> None:
    """A visitor gets GitHub's `FORBIDDEN` error and the PR stays a draft."""
    gw.push_branch("feature", {"new.txt": "new\n"}, "Add new")
    pr = open_pr(writer, gw, "feature", draft=True)
    visitor_token = gw.server.add_user(f"visitor-of-{gw.slug.replace('/', '-')}")
    with gw.client(visitor_token) as visitor:
        answer = visitor.post("/graphql", json={"query": READY, "variables": {"id": pr["node_id"]}})
    assert answer.json()["errors"][0]["type"] == "FORBIDDEN"
    assert writer.get(f"{gw.repo_path}/pulls/{pr['number']}").json()["draft"] is True


def test_an_unknown_node_id_answers_not_found(writer: httpx.Client) -> None:
    """GitHub's `NOT_FOUND` error type, with the mutation's data null."""
    answer = writer.post("/graphql", json={"query": READY, "variables": {"id": "PR_nope"}})
    body = answer.json()
    assert body["data"] == {"markPullRequestReadyForReview": None}
    assert body["errors"][0]["type"] == "NOT_FOUND"
    assert body["errors"][0]["path"] == ["markPullRequestReadyForReview"]


def test_an_invalid_document_gets_errors(writer: httpx.Client) -> None:
    """Unknown fields and syntax errors are answered in the `errors` shape, without data,
    each time the same document comes (the forge keeps a document's validation)."""
    for _ in range(2):
        unknown = writer.post("/graphql", json={"query": "{ viewer { noSuchField } }"}).json()
        assert "data" not in unknown
        assert "noSuchField" in unknown["errors"][0]["message"]
        assert unknown["errors"][0]["locations"]
        broken = writer.post("/graphql", json={"query": "mutation {"}).json()
        assert broken["errors"][0]["message"].startswith("Syntax Error")
        assert writer.post("/graphql", json={"query": "{ viewer { login } }"}).json()["data"]


def test_graphql_needs_a_token(gw: GitWorld) -> None:
    """An anonymous request gets 401, as on GitHub."""
    assert http.post(f"{gw.server.url}/graphql", json={"query": READY}).status_code == 401


def test_the_first_graphql_request_does_not_stall_other_requests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While GitHub's schema is still being built, REST reads keep answering."""
    entered, release = threading.Event(), threading.Event()
    real = graphql.github_schema

    def slow_schema() -> GraphQLSchema:
        """The schema once the test lets its build finish."""
        entered.set()
        release.wait(timeout=60)
        return real()

    with ForgeServer(tmp_path / "forge") as server:
        monkeypatch.setattr(graphql, "github_schema", slow_schema)
        token = server.add_user("reader")
        auth = {"Authorization": f"token {token}"}
        with http.client(base_url=server.url, timeout=20) as client, ThreadPoolExecutor(1) as pool:
            pending = pool.submit(
                client.post, "/graphql", json={"query": "{ viewer { login } }"}, headers=auth
            )
            assert entered.wait(timeout=30)
            try:
                assert client.get("/user", headers=auth).json()["login"] == "reader"
                assert not pending.done()
            finally:
                release.set()
            answer = pending.result()
    assert answer.json() == {"data": {"viewer": {"login": "reader"}}}


PULLS = """
query($owner: String!, $name: String!, $branch: String!, $states: [PullRequestState!]) {
  repository(owner: $owner, name: $name) {
    pullRequests(headRefName: $branch, first: 10, states: $states) {
      totalCount
      nodes {
        number headRefName state
        reviews(first: 10) { nodes { fullDatabaseId state body author { login } } }
        comments(first: 10) { nodes { body url } }
      }
    }
  }
}
"""


def test_a_branch_s_prs_come_with_reviews_and_comments(
    gw: GitWorld, writer: httpx.Client, admin: httpx.Client
) -> None:
    """Filtered by head and state; a pending review only its author sees; a PR's comment
    links to its `/pull/` page, as REST's list does."""
    gw.push_branch("talk", {"talk.txt": "x\n"}, "Talk")
    pr = open_pr(writer, gw, "talk")
    admin.post(
        f"{gw.repo_path}/pulls/{pr['number']}/reviews",
        json={"body": "Fix", "event": "REQUEST_CHANGES"},
    )
    admin.post(f"{gw.repo_path}/pulls/{pr['number']}/reviews", json={"body": "pending"})
    admin.post(f"{gw.repo_path}/issues/{pr['number']}/comments", json={"body": "hello"})
    owner, name = gw.slug.split("/")

    def ask(client: httpx.Client, states: list[str] | None) -> dict[str, object]:
        variables = {"owner": owner, "name": name, "branch": "talk", "states": states}
        answer = client.post("/graphql", json={"query": PULLS, "variables": variables}).json()
        assert "errors" not in answer
        return answer["data"]["repository"]["pullRequests"]  # type: ignore[no-any-return]

    seen = ask(writer, ["OPEN"])
    assert seen["totalCount"] == 1
    node = seen["nodes"][0]  # type: ignore[index]
    assert (node["number"], node["headRefName"], node["state"]) == (pr["number"], "talk", "OPEN")
    assert [r["state"] for r in node["reviews"]["nodes"]] == ["CHANGES_REQUESTED"]
    assert [r["state"] for r in ask(admin, None)["nodes"][0]["reviews"]["nodes"]] == [  # type: ignore[index]
        "CHANGES_REQUESTED",
        "PENDING",
    ]
    listed = writer.get(f"{gw.repo_path}/issues/{pr['number']}/comments").json()
    assert [(c["body"], c["url"]) for c in node["comments"]["nodes"]] == [
        (c["body"], c["html_url"]) for c in listed
    ]
    assert ask(writer, ["MERGED"])["totalCount"] == 0
