"""Issue operations of the GitHub client: list (conditionally), read, open, close, sub-issues."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from githubkit_schemas.latest.models import Issue as KitIssue

from conveyor.forge.github.base import if_none_match, items_of
from conveyor.forge.github.convert import is_pull_request, to_issue
from conveyor.forge.github.paging import PagedOps
from conveyor.forge.types import Issue, IssuePage


class IssueOps(PagedOps):
    """Issues: the poll's list, one issue, and the writes the pipeline makes to them."""

    def list_open_issues(self, etag: str | None = None) -> IssuePage:
        """Open issues (no PRs), most recently updated first; conditional on `etag`.

        Page 1 is asked with `If-None-Match`; a 304 costs no rate limit and
        nothing more is fetched. Sorting by `updated` puts every new or changed
        open issue on page 1, so its ETag moves with them. (An issue closed
        while on a later page leaves page 1 alone: the snapshot notices it when
        page 1 next changes or the issue itself is read.)
        """
        issues = self._kit.rest.issues
        listed = self._open_since("list open issues", issues.list_for_repo, KitIssue, etag)
        if listed is None:
            return IssuePage(issues=(), etag=etag, not_modified=True)
        found, first = listed
        return IssuePage(
            issues=tuple(to_issue(i) for i in found if not is_pull_request(i)),
            etag=first.headers.get("etag"),
            not_modified=False,
        )

    def list_closed_issues(self, label: str, etag: str | None = None) -> IssuePage:
        """Closed issues carrying `label` (no PRs), most recently updated first, one page of
        100; conditional on `etag` like the open list (a 304 costs no rate limit)."""
        response = self._run(
            "list closed issues",
            None,
            lambda: self._kit.rest.issues.list_for_repo(
                self._owner,
                self._name,
                state="closed",
                labels=label,
                sort="updated",
                direction="desc",
                per_page=100,
                headers=if_none_match(etag),
            ),
        )
        if response.status_code == 304:
            return IssuePage(issues=(), etag=etag, not_modified=True)
        found = tuple(to_issue(i) for i in items_of(response, KitIssue) if not is_pull_request(i))
        return IssuePage(issues=found, etag=response.headers.get("etag"), not_modified=False)

    def get_issue(self, number: int) -> Issue:
        """One issue by number (GitHub answers for a PR's number too)."""
        response = self._run(
            "get issue",
            number,
            lambda: self._kit.rest.issues.get(self._owner, self._name, number),
        )
        return to_issue(response.parsed_data)

    def create_issue(self, title: str, body: str, labels: Sequence[str] = ()) -> Issue:
        """Open a new issue."""
        response = self._run(
            "create issue",
            None,
            lambda: self._kit.rest.issues.create(
                self._owner, self._name, title=title, body=body, labels=list(labels)
            ),
        )
        return to_issue(response.parsed_data)

    def close_issue(
        self, number: int, reason: Literal["completed", "not_planned"] = "completed"
    ) -> Issue:
        """Close an issue with a state reason."""
        response = self._run(
            "close issue",
            number,
            lambda: self._kit.rest.issues.update(
                self._owner, self._name, number, state="closed", state_reason=reason
            ),
        )
        return to_issue(response.parsed_data)

    def reopen_issue(self, number: int) -> Issue:
        """Reopen a closed issue."""
        response = self._run(
            "reopen issue",
            number,
            lambda: self._kit.rest.issues.update(self._owner, self._name, number, state="open"),
        )
        return to_issue(response.parsed_data)

    def edit_issue_body(self, number: int, body: str) -> Issue:
        """Replace an issue's body."""
        response = self._run(
            "edit issue body",
            number,
            lambda: self._kit.rest.issues.update(self._owner, self._name, number, body=body),
        )
        return to_issue(response.parsed_data)

    def add_assignees(self, number: int, logins: Sequence[str]) -> tuple[str, ...]:
        """Assign people to an issue or PR; its assignees afterwards."""
        response = self._run(
            "add assignees",
            number,
            lambda: self._kit.rest.issues.add_assignees(
                self._owner, self._name, number, assignees=list(logins)
            ),
        )
        return to_issue(response.parsed_data).assignees

    def request_reviewers(self, number: int, logins: Sequence[str]) -> None:
        """Ask these collaborators to review PR `number`."""
        self._run(
            "request reviewers",
            number,
            lambda: self._kit.rest.pulls.request_reviewers(
                self._owner, self._name, number, reviewers=list(logins)
            ),
        )

    def add_sub_issue(self, parent: int, child: int) -> None:
        """Link issue `child` under `parent`: GitHub takes the child's id, not its number."""
        child_id = self.get_issue(child).id
        self._run(
            "add sub-issue",
            parent,
            lambda: self._kit.rest.issues.add_sub_issue(
                self._owner, self._name, parent, sub_issue_id=child_id
            ),
        )

    def list_sub_issues(self, parent: int) -> tuple[Issue, ...]:
        """The sub-issues of `parent`, in GitHub's order."""
        issues = self._kit.rest.issues
        found = self._every("list sub-issues", parent, issues.list_sub_issues, KitIssue)
        return tuple(to_issue(i) for i in found)
