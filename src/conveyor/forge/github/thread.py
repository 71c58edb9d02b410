"""An issue with its labels and comments in one GraphQL query (`read_issue_thread`).

REST needs two requests (the issue, its comments); GraphQL answers both, up to 100
comments a page. What it returns is turned into the same `Issue` and `Comment` values the
REST reads give: ids from `fullDatabaseId` (GitHub's ids are past 32 bits), a `Bot`'s
login with REST's `[bot]` suffix (GraphQL's has none), a deleted author as `ghost`, the
state reason in REST's lower case. A pull request's number, or an issue with more than
100 labels, is read through REST as before.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from conveyor.forge.errors import ForgeError, NotFound
from conveyor.forge.github.comments import CommentOps
from conveyor.forge.github.issues import IssueOps
from conveyor.forge.types import Comment, Issue, IssueThread

ISSUE_THREAD = """
query IssueThread($owner: String!, $name: String!, $number: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    issueOrPullRequest(number: $number) {
      __typename
      ... on Issue {
        id
        fullDatabaseId
        number
        title
        body
        state
        stateReason(enableDuplicate: true)
        url
        createdAt
        updatedAt
        author { __typename login }
        labels(first: 100) { pageInfo { hasNextPage } nodes { name } }
        comments(first: 100, after: $after) {
          pageInfo { hasNextPage endCursor }
          nodes {
            fullDatabaseId
            body
            url
            createdAt
            updatedAt
            author { __typename login }
          }
        }
      }
    }
  }
}
"""


def _when(value: object) -> datetime:
    return datetime.fromisoformat(str(value).replace("Z", "+00:00"))


def _login(actor: object) -> str:
    """REST's login for a GraphQL `Actor` (`ghost` for a deleted account)."""
    if not isinstance(actor, dict) or not isinstance(actor.get("login"), str):
        return "ghost"
    login = str(actor["login"])
    return f"{login}[bot]" if actor.get("__typename") == "Bot" else login


def to_thread_comment(node: dict[str, Any]) -> Comment:
    """An `IssueComment` node as REST's comment."""
    return Comment(
        id=int(node["fullDatabaseId"]),
        author=_login(node.get("author")),
        body=str(node.get("body") or ""),
        created_at=_when(node["createdAt"]),
        updated_at=_when(node["updatedAt"]),
        html_url=str(node["url"]),
    )


def to_thread_issue(node: dict[str, Any]) -> Issue:
    """An `Issue` node as REST's issue."""
    state: Literal["open", "closed"] = "open" if node["state"] == "OPEN" else "closed"
    reason = node.get("stateReason")
    labels = node.get("labels") or {}
    return Issue(
        number=int(node["number"]),
        id=int(node["fullDatabaseId"]),
        node_id=str(node["id"]),
        title=str(node["title"]),
        body=str(node.get("body") or ""),
        state=state,
        state_reason=str(reason).lower() if reason else None,
        author=_login(node.get("author")),
        labels=tuple(str(label["name"]) for label in labels.get("nodes") or () if label),
        created_at=_when(node["createdAt"]),
        updated_at=_when(node["updatedAt"]),
        html_url=str(node["url"]),
    )


class ThreadOps(IssueOps, CommentOps):
    """The issue, its labels and its comments, read together (REST's two reads otherwise)."""

    def _thread_page(self, number: int, after: str | None) -> dict[str, Any] | None:
        """One answer's issue node, or None when the number is a pull request's."""
        variables = {"owner": self._owner, "name": self._name, "number": number, "after": after}
        data = self._run(
            "read issue",
            number,
            lambda: self._kit.graphql.request(ISSUE_THREAD, variables),
        )
        repository = data.get("repository") if isinstance(data, dict) else None
        if not isinstance(repository, dict):
            raise NotFound("read issue", number, f"no repository {self.repo}")
        node = repository.get("issueOrPullRequest")
        if node is None:
            raise NotFound("read issue", number, f"no issue {number} in {self.repo}")
        if not isinstance(node, dict):
            raise ForgeError("read issue", number, f"the forge answered {data!r}")
        return node if node.get("__typename") == "Issue" else None

    def read_issue_thread(self, number: int) -> IssueThread:
        """The issue with its labels and every comment, oldest first: one request up to 100
        comments (one more per further 100)."""
        node = self._thread_page(number, None)
        if node is None or ((node.get("labels") or {}).get("pageInfo") or {}).get("hasNextPage"):
            return IssueThread(self.get_issue(number), self.list_comments(number).comments)
        issue = to_thread_issue(node)
        comments: list[Comment] = []
        while True:
            page = node["comments"]
            comments.extend(to_thread_comment(c) for c in page.get("nodes") or () if c)
            info = page.get("pageInfo") or {}
            if not info.get("hasNextPage"):
                return IssueThread(issue, tuple(comments))
            node = self._thread_page(number, str(info.get("endCursor"))) or {}
            if "comments" not in node:
                return IssueThread(self.get_issue(number), self.list_comments(number).comments)
