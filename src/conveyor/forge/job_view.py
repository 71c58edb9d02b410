"""A forge for one job: the issue and comment reads it repeats come from what it last saw.

A stage job reads its issue and the issue's comments at the start (one request:
`read_issue_thread`, which brings the issue branch's PRs with their reviews and comments:
the PR-feedback read that follows at once is answered from it) and then
saves its state, posts comments and sets labels many times. It holds the
issue's lease, so between its own writes nothing it relies on changes: the
writes it makes through this wrapper update the copies it keeps, and a
repeated read is answered from them. `forget(number)` drops the copies, so
the next read goes to the forge (the claim race re-reads after its wait).
Who collaborates, what the repository is and which labels exist come from the
answer file while it is fresh; a branch's required checks are read once a job.
Everything else goes straight to the wrapped forge (`ForgeDelegate`).

The first reread of an issue's comments (before a job's first session) is answered
from the job's own read when that read is less than `FIRST_REREAD_S` old: a comment
posted in those seconds is one posted just after the session began, which the next
session or job reads.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Callable, Sequence
from typing import Literal

from conveyor.core.stacking import prereq_branch
from conveyor.forge.answers import AnswerFile
from conveyor.forge.delegate import ForgeDelegate
from conveyor.forge.protocol import Forge
from conveyor.forge.review_types import Review
from conveyor.forge.types import (
    Comment,
    CommentPage,
    Issue,
    IssueThread,
    LabelSpec,
    PullTalk,
    RepoInfo,
    RequiredChecks,
)

REPO_KEY = "repo"
FIRST_REREAD_S = 5.0


class AnsweredForge(ForgeDelegate):
    """Wraps a `Forge`; who collaborates and what the repository is come from the answer file
    while it is fresh (what `conveyor drive` reads between jobs uses it too)."""

    def __init__(self, inner: Forge, answers: AnswerFile | None = None) -> None:
        super().__init__(inner)
        self.answers = answers
        self._repo: RepoInfo | None = None

    def repo_info(self) -> RepoInfo:
        """The repository, read once (or taken from the answer file)."""
        if self._repo is None:
            kept = self.answers.get(REPO_KEY) if self.answers is not None else None
            if isinstance(kept, dict):
                with contextlib.suppress(TypeError):
                    self._repo = RepoInfo(**kept)
        if self._repo is None:
            self._repo = self.inner.repo_info()
            if self.answers is not None:
                self.answers.put(REPO_KEY, dataclasses.asdict(self._repo))
        return self._repo

    def is_collaborator(self, login: str) -> bool:
        """Whether `login` collaborates (an answer less than ten minutes old is reused)."""
        key = f"collaborator:{login.casefold()}"
        kept = self.answers.get(key) if self.answers is not None else None
        if isinstance(kept, bool):
            return kept
        answer = self.inner.is_collaborator(login)
        if self.answers is not None:
            self.answers.put(key, answer)
        return answer


class JobForge(AnsweredForge):
    """Wraps a `Forge`; keeps the issues and comment lists it read or wrote, and the repo."""

    def __init__(
        self,
        inner: Forge,
        answers: AnswerFile | None = None,
        clock: Callable[[], float] = time.monotonic,
        issue_branch: Callable[[int], str] = prereq_branch,
    ) -> None:
        super().__init__(inner, answers)
        self._clock = clock
        self._issues: dict[int, Issue] = {}
        self._comments: dict[int, tuple[Comment, ...]] = {}
        self._etags: dict[int, str] = {}
        self._read_at: dict[int, float] = {}  # when each kept comment list was last read
        self._reread: set[int] = set()  # the issues whose comments were reread this job
        self._required: dict[str, RequiredChecks | None] = {}
        self._issue_branch = issue_branch
        self._talk: dict[int, tuple[float, PullTalk]] = {}  # PR talk of the start read
        self._talk_used: dict[int, set[str]] = {}

    def forget(self, number: int) -> None:
        """Read the issue's comments from the forge next time."""
        self._comments.pop(number, None)

    def reread_comments(self, number: int) -> tuple[Comment, ...]:
        """Read the comments again (conditionally on the last read's ETag): the new ones.

        What someone else posted while the job worked (BB-CMT); an unchanged list costs
        a 304, which GitHub does not count against the rate limit. The first reread is
        answered from a read less than `FIRST_REREAD_S` old (nothing is new).
        """
        first = number not in self._reread
        self._reread.add(number)
        read_at = self._read_at.get(number)
        if first and read_at is not None and self._clock() - read_at < FIRST_REREAD_S:
            return ()
        before = self._comments.get(number)
        etag = self._etags.get(number) if before is not None else None
        page = self.inner.list_comments(number, etag)
        if page.not_modified:
            self._read_at[number] = self._clock()
            return ()
        self._keep(number, page)
        known = {c.id for c in before or ()}
        return tuple(c for c in page.comments if c.id not in known)

    def _keep(self, number: int, page: CommentPage) -> None:
        self._comments[number] = page.comments
        self._read_at[number] = self._clock()
        if page.etag:
            self._etags[number] = page.etag
        else:
            self._etags.pop(number, None)

    def ensure_labels(self, labels: Sequence[LabelSpec]) -> None:
        """Create the labels not known to exist (an answer less than ten minutes old)."""
        keys = {spec.name: f"label:{spec.name.casefold()}" for spec in labels}
        answers = self.answers
        missing = [s for s in labels if answers is None or answers.get(keys[s.name]) is not True]
        if not missing:
            return
        self.inner.ensure_labels(missing)
        if answers is not None:
            for spec in missing:
                answers.put(keys[spec.name], True)

    def required_checks(self, branch: str) -> RequiredChecks | None:
        """The branch's required checks, read once a job (a CI wait polls them again)."""
        if branch not in self._required:
            self._required[branch] = self.inner.required_checks(branch)
        return self._required[branch]

    def get_issue(self, number: int) -> Issue:
        """The issue as last read or written.

        Read with its comments (one request, `read_issue_thread`) unless they are kept:
        every job reads both at its start, moments apart, and one answer is a snapshot of
        both, as two reads would be with nothing between them.
        """
        if number not in self._issues:
            if number in self._comments:
                self._issues[number] = self.inner.get_issue(number)
            else:
                self.read_issue_thread(number)
        return self._issues[number]

    def read_issue_thread(self, number: int, pr_branch: str | None = None) -> IssueThread:
        """The issue and its comments as last read or written (read together when neither is
        kept, with the issue branch's PRs: their reviews and comments answer the job's first
        ask for them within `FIRST_REREAD_S`); the comment list carries no ETag, so the next
        reread is a full one."""
        if pr_branch is None and number in self._issues and number in self._comments:
            return IssueThread(self._issues[number], self._comments[number])
        thread = self.inner.read_issue_thread(number, pr_branch or self._issue_branch(number))
        self._issues[number] = thread.issue
        self._keep(number, CommentPage(thread.comments, etag=None, not_modified=False))
        at = self._clock()
        for talk in thread.pulls:
            self._talk[talk.number] = (at, talk)
        return thread

    def recent_head(self, number: int) -> str | None:
        """PR `number`'s head as the job's start read saw it, once, while under
        `FIRST_REREAD_S` old (None: ask the forge)."""
        talk = self._talk_of(number, "head")
        return talk.head_sha if talk is not None else None

    def _talk_of(
        self, number: int, part: Literal["reviews", "comments", "head"]
    ) -> PullTalk | None:
        """The PR's reviews or comments from the job's start read, once, while under
        `FIRST_REREAD_S` old: a read moments ago in this job, where the reads it replaces
        came next with nothing the job did between them."""
        kept = self._talk.get(number)
        if kept is None or self._clock() - kept[0] >= FIRST_REREAD_S:
            self._talk.pop(number, None)
            return None
        if part in self._talk_used.setdefault(number, set()):
            return None
        self._talk_used[number].add(part)
        return kept[1]

    def list_reviews(self, number: int) -> tuple[Review, ...]:
        """The PR's reviews (the first ask may be answered from the job's start read)."""
        talk = self._talk_of(number, "reviews")
        return talk.reviews if talk is not None else self.inner.list_reviews(number)

    def list_comments(self, number: int, etag: str | None = None) -> CommentPage:
        """The comments as last read, with this job's own posts and edits applied (a PR's
        first read may be answered from the job's start read)."""
        if etag is None and number not in self._comments:
            talk = self._talk_of(number, "comments")
            if talk is not None:
                self._keep(number, CommentPage(talk.comments, etag=None, not_modified=False))
        if etag is None and number in self._comments:
            return CommentPage(self._comments[number], etag=None, not_modified=False)
        page = self.inner.list_comments(number, etag)
        if not page.not_modified:
            self._keep(number, page)
        elif number in self._comments:
            self._read_at[number] = self._clock()
        return page

    def create_comment(self, number: int, body: str) -> Comment:
        """Post a comment, and add it to the kept list."""
        posted = self.inner.create_comment(number, body)
        if number in self._comments:
            self._comments[number] = (*self._comments[number], posted)
        return posted

    def edit_comment(self, comment_id: int, body: str, number: int | None = None) -> Comment:
        """Edit a comment, and replace it in whichever kept list holds it."""
        edited = self.inner.edit_comment(comment_id, body, number)
        for issue, comments in self._comments.items():
            if any(c.id == comment_id for c in comments):
                self._comments[issue] = tuple(edited if c.id == comment_id else c for c in comments)
        return edited

    def add_labels(self, number: int, names: Sequence[str]) -> tuple[str, ...]:
        """Add labels; the kept issue takes the forge's answer (every label it now has)."""
        labels = self.inner.add_labels(number, names)
        self._relabel(number, labels)
        return labels

    def remove_label(self, number: int, name: str) -> None:
        """Remove a label from the issue and from the kept copy."""
        self.inner.remove_label(number, name)
        if (kept := self._issues.get(number)) is not None:
            self._relabel(number, tuple(n for n in kept.labels if n != name))

    def close_issue(
        self, number: int, reason: Literal["completed", "not_planned"] = "completed"
    ) -> Issue:
        """Close the issue; keep the forge's answer."""
        self._issues[number] = issue = self.inner.close_issue(number, reason)
        return issue

    def reopen_issue(self, number: int) -> Issue:
        """Reopen the issue; keep the forge's answer."""
        self._issues[number] = issue = self.inner.reopen_issue(number)
        return issue

    def edit_issue_body(self, number: int, body: str) -> Issue:
        """Edit the issue's body; keep the forge's answer."""
        self._issues[number] = issue = self.inner.edit_issue_body(number, body)
        return issue

    def _relabel(self, number: int, labels: tuple[str, ...]) -> None:
        if (kept := self._issues.get(number)) is not None:
            self._issues[number] = dataclasses.replace(kept, labels=labels)


def job_forge_is_a_forge(view: JobForge) -> Forge:
    """A `JobForge` is a `Forge` (mypy checks every override's signature here)."""
    return view
