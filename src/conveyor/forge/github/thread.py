"""An issue with its labels and comments in one GraphQL query (`read_issue_thread`).

REST needs two requests (the issue, its comments); GraphQL answers both, up to 100
comments a page. What it returns is turned into the same `Issue` and `Comment` values the
REST reads give: ids from `fullDatabaseId` (GitHub's ids are past 32 bits), a `Bot`'s
login with REST's `[bot]` suffix (GraphQL's has none), a deleted author as `ghost`, the
state reason in REST's lower case. Each text also says who last edited it (`editor`,
`lastEditedAt`: `Issue.edits`, `Comment.edits`), which REST cannot (TRUST-12). A pull
request's number, or an issue with more than 100 labels, is read through REST as before.
Given a branch, the same request answers that branch's PRs with their reviews and
conversation comments (what a job reads of its PR's feedback at its start).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from conveyor.core.trust import NEVER_EDITED, Edits, LastEdit
from conveyor.forge.errors import ForgeError, NotFound
from conveyor.forge.github.comments import CommentOps
from conveyor.forge.github.issues import IssueOps
from conveyor.forge.review_types import Review
from conveyor.forge.types import Comment, Issue, IssueThread, PullTalk

COMMENT_FIELDS = """
fragment ThreadComment on IssueComment {
  id
  fullDatabaseId
  body
  lastEditedAt
  editor { __typename login }
  url
  createdAt
  updatedAt
  author { __typename login }
}
"""
ISSUE_FIELDS = """
fragment ThreadIssue on Issue {
  id
  fullDatabaseId
  number
  title
  body
  lastEditedAt
  editor { __typename login }
  state
  stateReason(enableDuplicate: true)
  url
  createdAt
  updatedAt
  author { __typename login }
  labels(first: 100) { pageInfo { hasNextPage } nodes { name } }
  comments(first: 100, after: $after) {
    pageInfo { hasNextPage endCursor }
    nodes { ...ThreadComment }
  }
}
"""
ISSUE_THREAD = (
    """
query IssueThread($owner: String!, $name: String!, $number: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    issueOrPullRequest(number: $number) { __typename ...ThreadIssue }
  }
}
"""
    + ISSUE_FIELDS
    + COMMENT_FIELDS
)
# The same, with the PRs whose head is $branch: their reviews and conversation comments.
ISSUE_THREAD_WITH_PULLS = (
    """
query IssueThreadWithPulls(
  $owner: String!, $name: String!, $number: Int!, $after: String, $branch: String!
) {
  repository(owner: $owner, name: $name) {
    issueOrPullRequest(number: $number) { __typename ...ThreadIssue }
    pullRequests(headRefName: $branch, first: 10, states: [OPEN, CLOSED, MERGED]) {
      nodes {
        number
        headRefName
        headRefOid
        reviews(first: 100) {
          pageInfo { hasNextPage }
          nodes {
            fullDatabaseId
            body
            state
            url
            submittedAt
            commit { oid }
            author { __typename login }
          }
        }
        comments(first: 100) {
          pageInfo { hasNextPage }
          nodes { ...ThreadComment }
        }
      }
    }
  }
}
"""
    + ISSUE_FIELDS
    + COMMENT_FIELDS
)


def when(value: object) -> datetime:
    """A GraphQL `DateTime` as an aware datetime."""
    return datetime.fromisoformat(str(value).replace("Z", "+00:00"))


def login_of(actor: object) -> str:
    """REST's login for a GraphQL `Actor` (`ghost` for a deleted account)."""
    if not isinstance(actor, dict) or not isinstance(actor.get("login"), str):
        return "ghost"
    login = str(actor["login"])
    return f"{login}[bot]" if actor.get("__typename") == "Bot" else login


def to_edits(node: dict[str, Any]) -> Edits | None:
    """Who last edited a node's body (`editor` is the actor of the last edit, `lastEditedAt`
    its time; a deleted editor is `ghost`); None when the answer lacks the fields."""
    if "lastEditedAt" not in node:
        return None
    edited = node.get("lastEditedAt")
    if not edited:
        return NEVER_EDITED
    return Edits(LastEdit(login_of(node.get("editor")), when(edited)))


def to_thread_comment(node: dict[str, Any]) -> Comment:
    """An `IssueComment` node as REST's comment, with who last edited it."""
    return Comment(
        id=int(node["fullDatabaseId"]),
        author=login_of(node.get("author")),
        body=str(node.get("body") or ""),
        created_at=when(node["createdAt"]),
        updated_at=when(node["updatedAt"]),
        html_url=str(node["url"]),
        edits=to_edits(node),
        node_id=str(node.get("id") or ""),
    )


def to_thread_issue(node: dict[str, Any]) -> Issue:
    """An `Issue` node as REST's issue (its assignees and milestone are not asked: a job
    never reads them, only the orchestrator's list does)."""
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
        author=login_of(node.get("author")),
        labels=tuple(str(label["name"]) for label in labels.get("nodes") or () if label),
        created_at=when(node["createdAt"]),
        updated_at=when(node["updatedAt"]),
        html_url=str(node["url"]),
        edits=to_edits(node),
    )


def to_thread_review(node: dict[str, Any]) -> Review:
    """A `PullRequestReview` node as REST's review."""
    commit = node.get("commit")
    submitted = node.get("submittedAt")
    return Review(
        id=int(node["fullDatabaseId"]),
        author=login_of(node.get("author")),
        body=str(node.get("body") or ""),
        state=str(node["state"]),
        commit_id=str(commit["oid"]) if isinstance(commit, dict) else None,
        submitted_at=when(submitted) if submitted else None,
        html_url=str(node["url"]),
    )


def _whole(connection: object) -> list[dict[str, Any]] | None:
    """A connection's nodes, or None when it has a next page."""
    if not isinstance(connection, dict) or (connection.get("pageInfo") or {}).get("hasNextPage"):
        return None
    return [n for n in connection.get("nodes") or () if isinstance(n, dict)]


def to_pull_talks(connection: object, branch: str) -> tuple[PullTalk, ...]:
    """The PRs of `branch` that came whole (every review and comment on one page)."""
    talks: list[PullTalk] = []
    nodes = connection.get("nodes") if isinstance(connection, dict) else None
    for node in nodes or ():
        if not isinstance(node, dict) or node.get("headRefName") != branch:
            continue  # GitHub filters by head already; the check guards a forge that ignores it
        reviews, comments = _whole(node.get("reviews")), _whole(node.get("comments"))
        if reviews is None or comments is None:
            continue
        talks.append(
            PullTalk(
                int(node["number"]),
                str(node["headRefOid"]),
                tuple(to_thread_review(r) for r in reviews),
                tuple(to_thread_comment(c) for c in comments),
            )
        )
    return tuple(talks)


class ThreadOps(IssueOps, CommentOps):
    """The issue, its labels and its comments, read together (REST's two reads otherwise)."""

    def _thread_page(
        self, number: int, after: str | None, branch: str | None = None
    ) -> tuple[dict[str, Any] | None, dict[str, Any]]:
        """One answer's issue node (None when the number is a pull request's) and repository."""
        variables: dict[str, Any] = {
            "owner": self._owner,
            "name": self._name,
            "number": number,
            "after": after,
        }
        document = ISSUE_THREAD
        if branch is not None:
            document, variables["branch"] = ISSUE_THREAD_WITH_PULLS, branch
        data = self._run(
            "read issue", number, lambda: self._kit.graphql.request(document, variables)
        )
        repository = data.get("repository") if isinstance(data, dict) else None
        if not isinstance(repository, dict):
            raise NotFound("read issue", number, f"no repository {self.repo}")
        node = repository.get("issueOrPullRequest")
        if node is None:
            raise NotFound("read issue", number, f"no issue {number} in {self.repo}")
        if not isinstance(node, dict):
            raise ForgeError("read issue", number, f"the forge answered {data!r}")
        return (node if node.get("__typename") == "Issue" else None), repository

    def read_issue_thread(self, number: int, pr_branch: str | None = None) -> IssueThread:
        """The issue with its labels and every comment, oldest first, and with `pr_branch` the
        reviews and comments of that branch's PRs: one request up to 100 comments (one more
        per further 100)."""
        node, repository = self._thread_page(number, None, pr_branch)
        pulls = to_pull_talks(repository.get("pullRequests"), pr_branch) if pr_branch else ()
        if node is None or ((node.get("labels") or {}).get("pageInfo") or {}).get("hasNextPage"):
            rest = self.get_issue(number), self.list_comments(number).comments
            return IssueThread(*rest, pulls)
        issue = to_thread_issue(node)
        comments: list[Comment] = []
        while True:
            page = node["comments"]
            comments.extend(to_thread_comment(c) for c in page.get("nodes") or () if c)
            info = page.get("pageInfo") or {}
            if not info.get("hasNextPage"):
                return IssueThread(issue, tuple(comments), pulls)
            node = self._thread_page(number, str(info.get("endCursor")))[0] or {}
            if "comments" not in node:
                rest = self.get_issue(number), self.list_comments(number).comments
                return IssueThread(*rest, pulls)
