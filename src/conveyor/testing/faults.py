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

from conveyor.forge.delegate import ForgeDelegate
from conveyor.forge.errors import Transient
from conveyor.forge.protocol import Forge
from conveyor.forge.types import (
    CheckRun,
    Comment,
    Issue,
    LabelSpec,
    MergeResult,
    PullRequest,
)

T = TypeVar("T")
When = Literal["before", "after"]


class InjectedFault(Transient):
    """The failure `FaultyForge` injects; a `Transient`, as a dropped connection would be."""


class FaultyForge(ForgeDelegate):
    """Wraps a forge; the write numbered `fail_at` (1-based) fails, `when` says how.

    Reads pass through (`ForgeDelegate`); every write is counted and may fail.
    """

    def __init__(self, inner: Forge, fail_at: int | None = None, when: When = "before") -> None:
        super().__init__(inner)
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

    def add_assignees(self, number: int, logins: Sequence[str]) -> tuple[str, ...]:
        """A counted write."""
        return self._write(
            "add_assignees", number, lambda: self.inner.add_assignees(number, logins)
        )

    def request_reviewers(self, number: int, logins: Sequence[str]) -> None:
        """A counted write."""
        self._write(
            "request_reviewers", number, lambda: self.inner.request_reviewers(number, logins)
        )

    def remove_requested_reviewers(self, number: int, logins: Sequence[str]) -> None:
        """A counted write."""
        self._write(
            "remove_requested_reviewers", number,
            lambda: self.inner.remove_requested_reviewers(number, logins),
        )  # fmt: skip

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

    def mark_pr_ready(self, number: int, title: str | None = None, body: str | None = None) -> None:
        """A counted write."""
        self._write("mark_pr_ready", number, lambda: self.inner.mark_pr_ready(number, title, body))

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
