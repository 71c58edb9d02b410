"""`FaultyForge`: a `Forge` that fails its k-th write, to test that ops survive a crash anywhere.

A fake, not a mock: every call goes to a real forge (usually the embedded
one through the GitHub client); only the k-th write is turned into a
`Transient` error, either before it reaches the forge (the request was
lost) or after (the write happened but its answer was lost). Reads are
never failed. `writes` counts the writes attempted so far, so a clean run
tells a test how many k to try.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal, TypeVar

from conveyor.forge.errors import Transient
from conveyor.forge.protocol import Forge, Permission
from conveyor.forge.review_types import Review, ReviewComment
from conveyor.forge.types import (
    Branch,
    CheckRun,
    Comment,
    CommentPage,
    CommitStatus,
    Issue,
    IssuePage,
    LabelSpec,
    MergeResult,
    PullRequest,
    RepoInfo,
    RequiredChecks,
)

T = TypeVar("T")
When = Literal["before", "after"]


class InjectedFault(Transient):
    """The failure `FaultyForge` injects; a `Transient`, as a dropped connection would be."""


class FaultyForge:
    """Wraps a forge; the write numbered `fail_at` (1-based) fails, `when` says how."""

    def __init__(self, inner: Forge, fail_at: int | None = None, when: When = "before") -> None:
        self.inner = inner
        self.fail_at = fail_at
        self.when = when
        self.writes = 0
        self.log: list[str] = []

    def _write(self, operation: str, number: int | None, call: Callable[[], T]) -> T:
        self.writes += 1
        self.log.append(operation)
        if self.writes != self.fail_at:
            return call()
        if self.when == "after":
            call()
        raise InjectedFault(operation, number, f"injected fault at write {self.writes}")

    # -- reads pass through -------------------------------------------------
    def whoami(self) -> str:
        """The inner forge's account."""
        return self.inner.whoami()

    def repo_info(self) -> RepoInfo:
        """The inner forge's repository facts."""
        return self.inner.repo_info()

    def permission(self, login: str) -> Permission:
        """Pass-through read."""
        return self.inner.permission(login)

    def is_collaborator(self, login: str) -> bool:
        """Pass-through read."""
        return self.inner.is_collaborator(login)

    def installation_token(self) -> str | None:
        """Pass-through read."""
        return self.inner.installation_token()

    def list_open_issues(self, etag: str | None = None) -> IssuePage:
        """Pass-through read."""
        return self.inner.list_open_issues(etag)

    def list_closed_issues(self, label: str, etag: str | None = None) -> IssuePage:
        """Pass-through read."""
        return self.inner.list_closed_issues(label, etag)

    def get_issue(self, number: int) -> Issue:
        """Pass-through read."""
        return self.inner.get_issue(number)

    def list_comments(self, number: int, etag: str | None = None) -> CommentPage:
        """Pass-through read."""
        return self.inner.list_comments(number, etag)

    def list_sub_issues(self, parent: int) -> tuple[Issue, ...]:
        """Pass-through read."""
        return self.inner.list_sub_issues(parent)

    def find_pr(self, head_branch: str) -> PullRequest | None:
        """Pass-through read."""
        return self.inner.find_pr(head_branch)

    def list_prs_into(self, base: str) -> tuple[int, ...]:
        """Pass-through read."""
        return self.inner.list_prs_into(base)

    def get_pr(self, number: int) -> PullRequest:
        """Pass-through read."""
        return self.inner.get_pr(number)

    def list_reviews(self, number: int) -> tuple[Review, ...]:
        """Pass-through read."""
        return self.inner.list_reviews(number)

    def list_review_comments(self, number: int) -> tuple[ReviewComment, ...]:
        """Pass-through read."""
        return self.inner.list_review_comments(number)

    def get_branch(self, name: str) -> Branch | None:
        """Pass-through read."""
        return self.inner.get_branch(name)

    def required_checks(self, branch: str) -> RequiredChecks | None:
        """Pass-through read."""
        return self.inner.required_checks(branch)

    def list_check_runs(self, sha: str) -> tuple[CheckRun, ...]:
        """Pass-through read."""
        return self.inner.list_check_runs(sha)

    def list_statuses(self, sha: str) -> tuple[CommitStatus, ...]:
        """Pass-through read."""
        return self.inner.list_statuses(sha)

    # -- writes count and may fail --------------------------------------------
    def create_issue(self, title: str, body: str, labels: Sequence[str] = ()) -> Issue:
        """A counted write."""
        return self._write(
            "create_issue", None, lambda: self.inner.create_issue(title, body, labels)
        )

    def close_issue(
        self, number: int, reason: Literal["completed", "not_planned"] = "completed"
    ) -> Issue:
        """A counted write."""
        return self._write("close_issue", number, lambda: self.inner.close_issue(number, reason))

    def reopen_issue(self, number: int) -> Issue:
        """A counted write."""
        return self._write("reopen_issue", number, lambda: self.inner.reopen_issue(number))

    def edit_issue_body(self, number: int, body: str) -> Issue:
        """A counted write."""
        return self._write(
            "edit_issue_body", number, lambda: self.inner.edit_issue_body(number, body)
        )

    def create_comment(self, number: int, body: str) -> Comment:
        """A counted write."""
        return self._write(
            "create_comment", number, lambda: self.inner.create_comment(number, body)
        )

    def edit_comment(self, comment_id: int, body: str, number: int | None = None) -> Comment:
        """A counted write."""
        return self._write(
            "edit_comment", number, lambda: self.inner.edit_comment(comment_id, body, number)
        )

    def ensure_labels(self, labels: Sequence[LabelSpec]) -> None:
        """A counted write."""
        self._write("ensure_labels", None, lambda: self.inner.ensure_labels(labels))

    def add_labels(self, number: int, names: Sequence[str]) -> tuple[str, ...]:
        """A counted write."""
        return self._write("add_labels", number, lambda: self.inner.add_labels(number, names))

    def remove_label(self, number: int, name: str) -> None:
        """A counted write."""
        self._write("remove_label", number, lambda: self.inner.remove_label(number, name))

    def add_sub_issue(self, parent: int, child: int) -> None:
        """A counted write."""
        self._write("add_sub_issue", parent, lambda: self.inner.add_sub_issue(parent, child))

    def create_draft_pr(self, head: str, base: str, title: str, body: str) -> PullRequest:
        """A counted write."""
        return self._write(
            "create_draft_pr", None, lambda: self.inner.create_draft_pr(head, base, title, body)
        )

    def create_pr(self, head: str, base: str, title: str, body: str) -> PullRequest:
        """A counted write."""
        return self._write("create_pr", None, lambda: self.inner.create_pr(head, base, title, body))

    def edit_pr(
        self,
        number: int,
        title: str | None = None,
        body: str | None = None,
        *,
        base: str | None = None,
    ) -> PullRequest:
        """A counted write."""
        return self._write(
            "edit_pr", number, lambda: self.inner.edit_pr(number, title, body, base=base)
        )

    def mark_pr_ready(self, number: int) -> None:
        """A counted write."""
        self._write("mark_pr_ready", number, lambda: self.inner.mark_pr_ready(number))

    def close_pr(self, number: int) -> PullRequest:
        """A counted write."""
        return self._write("close_pr", number, lambda: self.inner.close_pr(number))

    def reopen_pr(self, number: int) -> PullRequest:
        """A counted write."""
        return self._write("reopen_pr", number, lambda: self.inner.reopen_pr(number))

    def merge_pr(self, number: int, sha: str, title: str, message: str) -> MergeResult:
        """A counted write."""
        return self._write(
            "merge_pr", number, lambda: self.inner.merge_pr(number, sha, title, message)
        )

    def delete_branch(self, name: str) -> None:
        """A counted write."""
        self._write("delete_branch", None, lambda: self.inner.delete_branch(name))

    def create_check_run(
        self,
        sha: str,
        name: str,
        status: str,
        conclusion: str | None = None,
        summary: str | None = None,
    ) -> CheckRun:
        """A counted write."""
        return self._write(
            "create_check_run",
            None,
            lambda: self.inner.create_check_run(sha, name, status, conclusion, summary),
        )

    def update_check_run(
        self,
        check_run_id: int,
        status: str,
        conclusion: str | None = None,
        summary: str | None = None,
    ) -> CheckRun:
        """A counted write."""
        return self._write(
            "update_check_run",
            None,
            lambda: self.inner.update_check_run(check_run_id, status, conclusion, summary),
        )
