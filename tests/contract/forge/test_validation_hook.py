"""The validation hook itself: it passes GitHub's own examples and rejects what GitHub would not."""

from __future__ import annotations

import copy
import json
from typing import Any

import httpx
import pytest

from conveyor.testing import http
from tests.contract.forge.openapi import description
from tests.contract.forge.validation import ValidatingTransport

pytestmark = pytest.mark.contract

RATE = {
    "X-RateLimit-Limit": "5000",
    "X-RateLimit-Remaining": "4999",
    "X-RateLimit-Used": "1",
    "X-RateLimit-Reset": "1767225600",
}


def _example_issue(number: int, issue_id: int) -> dict[str, Any]:
    issue = copy.deepcopy(description().document["components"]["examples"]["issue"]["value"])
    issue["number"] = number
    issue["id"] = issue_id
    return dict(issue)


def _client(
    answers: dict[tuple[str, str], tuple[int, Any]],
) -> tuple[httpx.Client, ValidatingTransport]:
    def handler(request: httpx.Request) -> httpx.Response:
        status, body = answers[(request.method, request.url.path)]
        return httpx.Response(status, json=body, headers=RATE)

    hook = ValidatingTransport(httpx.MockTransport(handler))
    return http.client(transport=hook, base_url="http://forge.test"), hook


def test_the_hook_passes_github_s_own_example_exchanges() -> None:
    """A GitHub example answer and a sub-issue request by id raise no violation."""
    child = _example_issue(3, 1003)
    client, hook = _client(
        {
            ("GET", "/repos/o/r/issues/3"): (200, child),
            ("POST", "/repos/o/r/issues/1/sub_issues"): (201, _example_issue(1, 1001)),
        }
    )
    client.get("/repos/o/r/issues/3")
    client.post("/repos/o/r/issues/1/sub_issues", json={"sub_issue_id": 1003})
    assert hook.take() == []
    assert hook.checked == 2


def test_the_hook_rejects_a_missing_required_field_and_a_number_where_an_id_belongs() -> None:
    """An issue without `title` and a sub-issue request naming the child by number both fail."""
    broken = _example_issue(3, 1003)
    del broken["title"]
    client, hook = _client(
        {
            ("GET", "/repos/o/r/issues/3"): (200, broken),
            ("POST", "/repos/o/r/issues/1/sub_issues"): (201, _example_issue(1, 1001)),
        }
    )
    client.get("/repos/o/r/issues/3")
    client.post("/repos/o/r/issues/1/sub_issues", json={"sub_issue_id": 3})
    client.post("/repos/o/r/issues/1/sub_issues", json={"sub_issue_id": "1003"})
    found = hook.take()
    assert any("'title' is a required property" in v for v in found), found
    assert any("githubkit's model rejects it" in v for v in found), found
    assert any("sub_issue_id 3 is an issue's number, not its id" in v for v in found), found
    assert any("'1003' is not of type 'integer'" in v for v in found), found


@pytest.mark.parametrize(
    ("method", "path", "expected"),
    [
        ("GET", "/repos/o/r/issues?colour=red", "unknown query parameter 'colour'"),
        ("GET", "/repos/o/r/issues?per_page=lots", "query parameter per_page='lots'"),
        ("GET", "/repos/o/r/issues/abc", "path parameter issue_number='abc'"),
        ("GET", "/repos/o/r/nothing-here", "no such operation"),
    ],
)
def test_the_hook_rejects_requests_github_does_not_describe(
    method: str, path: str, expected: str
) -> None:
    """Unknown operations, unknown query parameters and mistyped parameters are violations."""
    client, hook = _client({})
    hook.inner = httpx.MockTransport(lambda _request: httpx.Response(200, json=[], headers=RATE))
    client.request(method, path)
    found = hook.take()
    assert any(expected in v for v in found), found


def test_the_hook_rejects_a_graphql_document_github_s_schema_refuses() -> None:
    """A mutation asking for a field GitHub's schema lacks is a violation; a valid one is not."""
    answer = {"data": {"markPullRequestReadyForReview": {"pullRequest": {"isDraft": False}}}}
    client, hook = _client({("POST", "/graphql"): (200, answer)})
    good = (
        "mutation($id: ID!) { markPullRequestReadyForReview(input: {pullRequestId: $id})"
        " { pullRequest { isDraft } } }"
    )
    client.post("/graphql", content=json.dumps({"query": good, "variables": {"id": "PR_1"}}))
    assert hook.take() == []
    client.post("/graphql", json={"query": good.replace("isDraft", "isDrafty")})
    assert any("Cannot query field 'isDrafty'" in v for v in hook.take())


def test_the_hook_rejects_a_graphql_answer_without_data_or_errors() -> None:
    """An answer that is neither `data` nor `errors` is not GitHub's GraphQL shape."""
    client, hook = _client({("POST", "/graphql"): (200, {"result": "ok"})})
    client.post("/graphql", json={"query": "query { viewer { login } }"})
    assert any("not GitHub's GraphQL answer shape" in v for v in hook.take())


def test_the_hook_rejects_an_answer_without_rate_limit_headers() -> None:
    """Every REST answer must say what is left of the rate limit."""
    client, hook = _client({})
    hook.inner = httpx.MockTransport(lambda _request: httpx.Response(200, json=[]))
    client.get("/repos/o/r/issues")
    assert any("no x-ratelimit-limit" in v for v in hook.take())
