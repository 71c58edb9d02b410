"""`ForgeDelegate`: a `Forge` that hands every call to the forge it wraps (for views to extend)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from conveyor.core.review_request import RequestEvent
from conveyor.forge.pr_types import InlineComment, LabelEvent, PrTexts, PullFile, PullPage
from conveyor.forge.protocol import Forge, Permission, ReviewEvent
from conveyor.forge.review_types import Review, ReviewComment
from conveyor.forge.types import (
    Branch,
    CheckRun,
    Comment,
    CommentPage,
    CommitStatus,
    Issue,
    IssuePage,
    IssueThread,
    LabelSpec,
    MergeResult,
    PullRequest,
    RepoInfo,
    RequiredChecks,
    TextVersion,
)


class ForgeDelegate:
    """Every `Forge` method, each passed on to `inner` unchanged; subclasses override some."""

    def __init__(self, inner: Forge) -> None:
        self.inner = inner

    def whoami(self) -> str:
        """The login the token acts as (`SLUG[bot]` for a GitHub App)."""
        return self.inner.whoami()

    def repo_info(self) -> RepoInfo:
        """The repository's default branch, clone URL and wiki."""
        return self.inner.repo_info()

    def permission(self, login: str) -> Permission:
        """`login`'s permission on the repository (`none` when not a collaborator)."""
        return self.inner.permission(login)

    def is_collaborator(self, login: str) -> bool:
        """Whether `login` is a collaborator of the repository."""
        return self.inner.is_collaborator(login)

    def installation_token(self) -> str | None:
        """A fresh installation token (an hour long) when acting as a GitHub App, else None."""
        return self.inner.installation_token()

    def list_open_issues(self, etag: str | None = None) -> IssuePage:
        """Open issues (no PRs), most recently updated first; conditional on `etag`."""
        return self.inner.list_open_issues(etag)

    def list_closed_issues(self, label: str, etag: str | None = None) -> IssuePage:
        """Closed issues carrying `label` (no PRs), newest update first; conditional on `etag`."""
        return self.inner.list_closed_issues(label, etag)

    def get_issue(self, number: int) -> Issue:
        """One issue by number."""
        return self.inner.get_issue(number)

    def read_issue_thread(self, number: int, pr_branch: str | None = None) -> IssueThread:
        """The issue and every comment on it, oldest first, read together (one request up to
        100 comments, where `get_issue` and `list_comments` are two); with `pr_branch`, the
        reviews and conversation comments of that branch's PRs in the same request."""
        return self.inner.read_issue_thread(number, pr_branch)

    def text_versions(self, node_id: str) -> tuple[TextVersion, ...]:
        """The edit history of an issue's body or a comment, newest first."""
        return self.inner.text_versions(node_id)

    def create_issue(self, title: str, body: str, labels: Sequence[str] = ()) -> Issue:
        """Open a new issue."""
        return self.inner.create_issue(title, body, labels)

    def close_issue(
        self, number: int, reason: Literal["completed", "not_planned"] = "completed"
    ) -> Issue:
        """Close an issue with a state reason."""
        return self.inner.close_issue(number, reason)

    def reopen_issue(self, number: int) -> Issue:
        """Reopen a closed issue."""
        return self.inner.reopen_issue(number)

    def edit_issue_body(self, number: int, body: str) -> Issue:
        """Replace an issue's body."""
        return self.inner.edit_issue_body(number, body)

    def list_comments(self, number: int, etag: str | None = None) -> CommentPage:
        """All comments of an issue or PR, oldest first; conditional on `etag`."""
        return self.inner.list_comments(number, etag)

    def create_comment(self, number: int, body: str) -> Comment:
        """Post a comment on an issue or PR."""
        return self.inner.create_comment(number, body)

    def edit_comment(self, comment_id: int, body: str, number: int | None = None) -> Comment:
        """Edit a comment in place (its id is kept). `number` is for error messages."""
        return self.inner.edit_comment(comment_id, body, number)

    def label_names(self) -> set[str]:
        """The repository's label names, lower case."""
        return self.inner.label_names()

    def ensure_labels(self, labels: Sequence[LabelSpec]) -> None:
        """Create the labels that do not exist yet (existing ones are left alone)."""
        return self.inner.ensure_labels(labels)

    def add_labels(self, number: int, names: Sequence[str]) -> tuple[str, ...]:
        """Add labels to an issue or PR; returns its labels afterwards."""
        return self.inner.add_labels(number, names)

    def remove_label(self, number: int, name: str) -> None:
        """Remove a label from an issue or PR; absent labels are not an error."""
        return self.inner.remove_label(number, name)

    def add_assignees(self, number: int, logins: Sequence[str]) -> tuple[str, ...]:
        """Assign people to an issue or PR; its assignees afterwards."""
        return self.inner.add_assignees(number, logins)

    def request_reviewers(self, number: int, logins: Sequence[str]) -> None:
        """Ask these collaborators to review PR `number`."""
        self.inner.request_reviewers(number, logins)

    def add_sub_issue(self, parent: int, child: int) -> None:
        """Link issue number `child` as a sub-issue of `parent` (the client sends its id)."""
        return self.inner.add_sub_issue(parent, child)

    def list_sub_issues(self, parent: int) -> tuple[Issue, ...]:
        """The sub-issues of `parent`."""
        return self.inner.list_sub_issues(parent)

    def find_pr(self, head_branch: str) -> PullRequest | None:
        """The PR (open or closed) whose head is `head_branch` in this repository, if any."""
        return self.inner.find_pr(head_branch)

    def list_prs_into(self, base: str) -> tuple[int, ...]:
        """The numbers of the open PRs based on the branch `base`."""
        return self.inner.list_prs_into(base)

    def create_draft_pr(self, head: str, base: str, title: str, body: str) -> PullRequest:
        """Open a draft PR; `DraftsRefused` where the repository takes no drafts."""
        return self.inner.create_draft_pr(head, base, title, body)

    def create_pr(self, head: str, base: str, title: str, body: str) -> PullRequest:
        """Open a PR ready for review (where drafts are refused)."""
        return self.inner.create_pr(head, base, title, body)

    def get_pr(self, number: int) -> PullRequest:
        """One PR with its head SHA, draft, merged and mergeable state."""
        return self.inner.get_pr(number)

    def edit_pr(
        self,
        number: int,
        title: str | None = None,
        body: str | None = None,
        *,
        base: str | None = None,
    ) -> PullRequest:
        """Change a PR's title, body and/or base branch."""
        return self.inner.edit_pr(number, title, body, base=base)

    def mark_pr_ready(self, number: int, title: str | None = None, body: str | None = None) -> None:
        """Mark a draft PR ready for review (GraphQL: there is no REST call); with `title`
        and `body`, set them first in the same request."""
        return self.inner.mark_pr_ready(number, title, body)

    def close_pr(self, number: int) -> PullRequest:
        """Close a PR without merging."""
        return self.inner.close_pr(number)

    def reopen_pr(self, number: int) -> PullRequest:
        """Reopen a closed, unmerged PR."""
        return self.inner.reopen_pr(number)

    def merge_pr(self, number: int, sha: str, title: str, message: str) -> MergeResult:
        """Squash-merge a PR if its head is still `sha` (Conflict when it moved)."""
        return self.inner.merge_pr(number, sha, title, message)

    def list_reviews(self, number: int) -> tuple[Review, ...]:
        """Every review of PR `number`, oldest first."""
        return self.inner.list_reviews(number)

    def list_review_comments(self, number: int) -> tuple[ReviewComment, ...]:
        """Every inline review comment of PR `number`, oldest first."""
        return self.inner.list_review_comments(number)

    def get_branch(self, name: str) -> Branch | None:
        """A branch, or None when it does not exist."""
        return self.inner.get_branch(name)

    def delete_branch(self, name: str) -> None:
        """Delete a branch ref; a missing branch is not an error."""
        return self.inner.delete_branch(name)

    def required_checks(self, branch: str) -> RequiredChecks | None:
        """The branch's required status checks; None when it is unprotected."""
        return self.inner.required_checks(branch)

    def list_check_runs(self, sha: str) -> tuple[CheckRun, ...]:
        """Every check run reported on a commit."""
        return self.inner.list_check_runs(sha)

    def list_statuses(self, sha: str) -> tuple[CommitStatus, ...]:
        """Every commit status reported on a commit."""
        return self.inner.list_statuses(sha)

    def create_check_run(
        self,
        sha: str,
        name: str,
        status: str,
        conclusion: str | None = None,
        summary: str | None = None,
    ) -> CheckRun:
        """Report a check run on a commit."""
        return self.inner.create_check_run(sha, name, status, conclusion, summary)

    def update_check_run(
        self,
        check_run_id: int,
        status: str,
        conclusion: str | None = None,
        summary: str | None = None,
    ) -> CheckRun:
        """Move a check run on (e.g. to completed with a conclusion)."""
        return self.inner.update_check_run(check_run_id, status, conclusion, summary)

    def list_open_prs(self, etag: str | None = None) -> PullPage:
        """Open PRs, most recently updated first; conditional on `etag`."""
        return self.inner.list_open_prs(etag)

    def list_pr_files(self, number: int) -> tuple[PullFile, ...]:
        """The files PR `number` changes."""
        return self.inner.list_pr_files(number)

    def list_review_requests(self, number: int) -> tuple[RequestEvent, ...]:
        """Who requested and withdrew reviews of PR `number` from whom, oldest first."""
        return self.inner.list_review_requests(number)

    def remove_requested_reviewers(self, number: int, logins: Sequence[str]) -> None:
        """Take these people off PR `number`'s requested reviewers."""
        self.inner.remove_requested_reviewers(number, logins)

    def list_label_events(self, number: int) -> tuple[LabelEvent, ...]:
        """Who added and removed the labels of issue or PR `number`, oldest first."""
        return self.inner.list_label_events(number)

    def read_pr_texts(self, number: int) -> PrTexts:
        """PR `number`'s description and every text people wrote on it (conversation comments,
        review bodies, inline comments), each with who last edited it (GraphQL only)."""
        return self.inner.read_pr_texts(number)

    def create_review(
        self,
        number: int,
        body: str,
        event: ReviewEvent | None = "COMMENT",
        comments: Sequence[InlineComment | tuple[str, int, str]] = (),
        *,
        commit_id: str | None = None,
    ) -> Review:
        """Submit one review of PR `number` with inline comments."""
        return self.inner.create_review(number, body, event, comments, commit_id=commit_id)


def as_forge(view: ForgeDelegate) -> Forge:
    """A delegate is a `Forge` (mypy checks every method's signature here)."""
    return view
