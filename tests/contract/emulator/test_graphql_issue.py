"""GraphQL's `repository { issueOrPullRequest }`: an issue, its labels and comments, paged as
GitHub pages them, with GitHub's errors for what it refuses."""

from __future__ import annotations

from typing import Any

import httpx

from tests.contract.emulator.conftest import World

THREAD = """
query($owner: String!, $name: String!, $number: Int!, $first: Int, $after: String) {
  repository(owner: $owner, name: $name) {
    issueOrPullRequest(number: $number) {
      __typename
      ... on Issue {
        number title state authorAssociation author { __typename login }
        labels(first: 10) { totalCount nodes { name } }
        comments(first: $first, after: $after) {
          totalCount
          pageInfo { hasNextPage endCursor }
          nodes { fullDatabaseId body authorAssociation author { __typename login } }
        }
      }
    }
  }
}
"""


def ask(client: httpx.Client, world: World, number: int, **variables: Any) -> dict[str, Any]:
    """The answer to THREAD for issue `number` (first 100 comments unless told)."""
    given = {"owner": world.owner, "name": world.name, "number": number, "first": 100}
    answer = client.post("/graphql", json={"query": THREAD, "variables": given | variables})
    assert answer.status_code == 200
    data: dict[str, Any] = answer.json()
    return data


def test_an_issue_with_its_labels_and_comments(world: World, owner: httpx.Client) -> None:
    """What REST lists, in the same order, with each author's association."""
    number = owner.post(f"{world.repo_path}/issues", json={"title": "t", "labels": ["bug"]}).json()[
        "number"
    ]
    comments = f"{world.repo_path}/issues/{number}/comments"
    owner.post(comments, json={"body": "one"})
    with world.client(world.visitor_token) as visitor:
        visitor.post(comments, json={"body": "two"})
    issue = ask(owner, world, number)["data"]["repository"]["issueOrPullRequest"]
    listed = owner.get(comments).json()
    assert issue["__typename"] == "Issue"
    assert issue["author"] == {"__typename": "User", "login": world.owner}
    assert issue["labels"] == {"totalCount": 1, "nodes": [{"name": "bug"}]}
    assert issue["comments"]["totalCount"] == 2
    assert [
        (int(c["fullDatabaseId"]), c["body"], c["author"]["login"], c["authorAssociation"])
        for c in issue["comments"]["nodes"]
    ] == [(c["id"], c["body"], c["user"]["login"], c["author_association"]) for c in listed]


def test_comments_are_paged_by_cursor(world: World, owner: httpx.Client) -> None:
    """`first` and `after` walk the list; the last page says there is no next one."""
    number = owner.post(f"{world.repo_path}/issues", json={"title": "t"}).json()["number"]
    for body in ("a", "b", "c"):
        owner.post(f"{world.repo_path}/issues/{number}/comments", json={"body": body})
    first = ask(owner, world, number, first=2)["data"]["repository"]["issueOrPullRequest"]
    assert [c["body"] for c in first["comments"]["nodes"]] == ["a", "b"]
    assert first["comments"]["pageInfo"]["hasNextPage"] is True
    after = first["comments"]["pageInfo"]["endCursor"]
    rest = ask(owner, world, number, first=2, after=after)["data"]["repository"]
    page = rest["issueOrPullRequest"]["comments"]
    assert [c["body"] for c in page["nodes"]] == ["c"]
    assert page["pageInfo"]["hasNextPage"] is False


def test_github_s_errors_for_what_it_refuses(world: World, owner: httpx.Client) -> None:
    """No `first`, more than 100, a bad cursor, an unknown repository: GitHub's error types."""
    number = owner.post(f"{world.repo_path}/issues", json={"title": "t"}).json()["number"]
    kinds = [
        ask(owner, world, number, first=None)["errors"][0]["type"],
        ask(owner, world, number, first=101)["errors"][0]["type"],
        ask(owner, world, number, after="not-a-cursor")["errors"][0]["type"],
    ]
    assert kinds == [
        "MISSING_PAGINATION_BOUNDARIES",
        "EXCESSIVE_PAGINATION",
        "INVALID_CURSOR_ARGUMENTS",
    ]
    missing = ask(owner, world, number, name="no-such-repo")
    assert missing["data"]["repository"] is None
    assert missing["errors"][0]["type"] == "NOT_FOUND"


def test_an_unknown_number_is_null_and_not_found(world: World, owner: httpx.Client) -> None:
    """No issue or PR by that number: null with a `NOT_FOUND` error, as GitHub answers."""
    answer = ask(owner, world, 9999)
    assert answer["data"]["repository"]["issueOrPullRequest"] is None
    assert answer["errors"][0]["type"] == "NOT_FOUND"
