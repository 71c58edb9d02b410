"""The `Forge` protocol: every forge operation the pipeline performs, typed.

One implementation talks to GitHub's HTTP API through githubkit
(`conveyor.forge.github`); it serves both api.github.com and the embedded
forge, so there is one code path. Test fakes (fault injection) wrap it.
Every method raises only `conveyor.forge.errors.ForgeError` subclasses.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol

from conveyor.core.review_request import RequestEvent
from conveyor.forge.pr_types import InlineComment, LabelEvent, PrTexts, PullFile, PullPage
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

Permission = Literal["admin", "maintain", "write", "triage", "read", "none"]
ReviewEvent = Literal["APPROVE", "REQUEST_CHANGES", "COMMENT"]


class Forge(Protocol):
    """One repository on one forge, as one account."""

    # -- who and what -------------------------------------------------------
    def whoami(self) -> str:
        """The login the token acts as (`SLUG[bot]` for a GitHub App)."""
        ...

    def repo_info(self) -> RepoInfo:
        """The repository's default branch, clone URL and wiki."""
        ...

    def permission(self, login: str) -> Permission:
        """`login`'s permission on the repository (`none` when not a collaborator)."""
        ...

    def is_collaborator(self, login: str) -> bool:
        """Whether `login` is a collaborator of the repository."""
        ...

    def installation_token(self) -> str | None:
        """A fresh installation token (an hour long) when acting as a GitHub App, else None.

        Git needs a token over https; a personal token is the configured one.
        """
        ...

    # -- issues ---------------------------------------------------------------
    def list_open_issues(self, etag: str | None = None) -> IssuePage:
        """Open issues (no PRs), most recently updated first; conditional on `etag`."""
        ...

    def list_closed_issues(self, label: str, etag: str | None = None) -> IssuePage:
        """Closed issues carrying `label` (no PRs), newest update first; conditional on `etag`."""
        ...

    def get_issue(self, number: int) -> Issue:
        """One issue by number."""
        ...

    def read_issue_thread(self, number: int, pr_branch: str | None = None) -> IssueThread:
        """The issue and every comment on it, oldest first, read together (one request up to
        100 comments, where `get_issue` and `list_comments` are two); with `pr_branch`, the
        reviews and conversation comments of that branch's PRs in the same request."""
        ...

    def create_issue(self, title: str, body: str, labels: Sequence[str] = ()) -> Issue:
        """Open a new issue."""
        ...

    def close_issue(
        self, number: int, reason: Literal["completed", "not_planned"] = "completed"
    ) -> Issue:
        """Close an issue with a state reason."""
        ...

    def reopen_issue(self, number: int) -> Issue:
        """Reopen a closed issue."""
        ...

    def edit_issue_body(self, number: int, body: str) -> Issue:
        """Replace an issue's body."""
        ...

    def text_versions(self, node_id: str) -> tuple[TextVersion, ...]:
        """The edit history of an issue's body or a comment (by its node id), newest first;
        empty when it was never edited (TRUST-12: a kept text found again after a loss)."""
        ...

    # -- comments -------------------------------------------------------------
    def list_comments(self, number: int, etag: str | None = None) -> CommentPage:
        """All comments of an issue or PR, oldest first; conditional on `etag`."""
        ...

    def create_comment(self, number: int, body: str) -> Comment:
        """Post a comment on an issue or PR."""
        ...

    def edit_comment(self, comment_id: int, body: str, number: int | None = None) -> Comment:
        """Edit a comment in place (its id is kept). `number` is for error messages."""
        ...

    # -- labels ---------------------------------------------------------------
    def label_names(self) -> set[str]:
        """The repository's label names, lower case."""
        ...

    def ensure_labels(self, labels: Sequence[LabelSpec]) -> None:
        """Create the labels that do not exist yet (existing ones are left alone)."""
        ...

    def add_labels(self, number: int, names: Sequence[str]) -> tuple[str, ...]:
        """Add labels to an issue or PR; returns its labels afterwards."""
        ...

    def remove_label(self, number: int, name: str) -> None:
        """Remove a label from an issue or PR; absent labels are not an error."""
        ...

    # -- people ---------------------------------------------------------------
    def add_assignees(self, number: int, logins: Sequence[str]) -> tuple[str, ...]:
        """Assign people to an issue or PR; returns its assignees afterwards (the forge leaves
        out, without an error, anyone who cannot be assigned here)."""
        ...

    def request_reviewers(self, number: int, logins: Sequence[str]) -> None:
        """Ask these collaborators to review PR `number` (`Validation` for anyone else)."""
        ...

    # -- sub-issues -----------------------------------------------------------
    def add_sub_issue(self, parent: int, child: int) -> None:
        """Link issue number `child` as a sub-issue of `parent` (the client sends its id)."""
        ...

    def list_sub_issues(self, parent: int) -> tuple[Issue, ...]:
        """The sub-issues of `parent`."""
        ...

    # -- pull requests ----------------------------------------------------------
    def find_pr(self, head_branch: str) -> PullRequest | None:
        """The PR (open or closed) whose head is `head_branch` in this repository, if any."""
        ...

    def list_prs_into(self, base: str) -> tuple[int, ...]:
        """The numbers of the open PRs based on the branch `base`."""
        ...

    def create_draft_pr(self, head: str, base: str, title: str, body: str) -> PullRequest:
        """Open a draft PR; `DraftsRefused` where the repository takes no drafts."""
        ...

    def create_pr(self, head: str, base: str, title: str, body: str) -> PullRequest:
        """Open a PR ready for review (where drafts are refused)."""
        ...

    def get_pr(self, number: int) -> PullRequest:
        """One PR with its head SHA, draft, merged and mergeable state."""
        ...

    def edit_pr(
        self,
        number: int,
        title: str | None = None,
        body: str | None = None,
        *,
        base: str | None = None,
    ) -> PullRequest:
        """Change a PR's title, body and/or base branch."""
        ...

    def mark_pr_ready(self, number: int, title: str | None = None, body: str | None = None) -> None:
        """Mark a draft PR ready for review (GraphQL: there is no REST call); with `title`
        and `body`, set them first in the same request."""
        ...

    def close_pr(self, number: int) -> PullRequest:
        """Close a PR without merging."""
        ...

    def reopen_pr(self, number: int) -> PullRequest:
        """Reopen a closed, unmerged PR."""
        ...

    def merge_pr(self, number: int, sha: str, title: str, message: str) -> MergeResult:
        """Squash-merge a PR if its head is still `sha` (Conflict when it moved)."""
        ...

    # -- people's reviews of a PR ---------------------------------------------------
    def list_reviews(self, number: int) -> tuple[Review, ...]:
        """Every review of PR `number`, oldest first."""
        ...

    def list_review_comments(self, number: int) -> tuple[ReviewComment, ...]:
        """Every inline review comment of PR `number`, oldest first."""
        ...

    # -- reviewing a person's PR -------------------------------------------------
    def list_open_prs(self, etag: str | None = None) -> PullPage:
        """Open PRs, most recently updated first; conditional on `etag`."""
        ...

    def list_pr_files(self, number: int) -> tuple[PullFile, ...]:
        """The files PR `number` changes (at most 3000, as GitHub lists them)."""
        ...

    def list_label_events(self, number: int) -> tuple[LabelEvent, ...]:
        """Who added and removed the labels of issue or PR `number`, oldest first."""
        ...

    def list_review_requests(self, number: int) -> tuple[RequestEvent, ...]:
        """Who requested and withdrew reviews of PR `number` from whom, oldest first."""
        ...

    def remove_requested_reviewers(self, number: int, logins: Sequence[str]) -> None:
        """Take these people off PR `number`'s requested reviewers (absent ones are no error)."""
        ...

    def read_pr_texts(self, number: int) -> PrTexts:
        """PR `number`'s description and every text people wrote on it (conversation comments,
        review bodies, inline comments), each with who last edited it (GraphQL only)."""
        ...

    def create_review(
        self,
        number: int,
        body: str,
        event: ReviewEvent | None = "COMMENT",
        comments: Sequence[InlineComment | tuple[str, int, str]] = (),
        *,
        commit_id: str | None = None,
    ) -> Review:
        """Submit one review of PR `number` at `commit_id` (None: its head), with inline
        comments on lines of its diff; event None leaves it pending."""
        ...

    # -- branches -------------------------------------------------------------
    def get_branch(self, name: str) -> Branch | None:
        """A branch, or None when it does not exist."""
        ...

    def delete_branch(self, name: str) -> None:
        """Delete a branch ref; a missing branch is not an error."""
        ...

    def required_checks(self, branch: str) -> RequiredChecks | None:
        """The branch's required status checks; None when it is unprotected."""
        ...

    # -- checks ---------------------------------------------------------------
    def list_check_runs(self, sha: str) -> tuple[CheckRun, ...]:
        """Every check run reported on a commit."""
        ...

    def list_statuses(self, sha: str) -> tuple[CommitStatus, ...]:
        """Every commit status reported on a commit."""
        ...

    def create_check_run(
        self,
        sha: str,
        name: str,
        status: str,
        conclusion: str | None = None,
        summary: str | None = None,
    ) -> CheckRun:
        """Report a check run on a commit."""
        ...

    def update_check_run(
        self,
        check_run_id: int,
        status: str,
        conclusion: str | None = None,
        summary: str | None = None,
    ) -> CheckRun:
        """Move a check run on (e.g. to completed with a conclusion)."""
        ...
