"""Typed values the forge returns: what the pipeline reads of issues, PRs and checks."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from conveyor.core.trust import Edits
from conveyor.forge.review_types import Review

IssueStateReason = Literal["completed", "not_planned", "reopened"]


@dataclass(frozen=True)
class LabelSpec:
    """A label as the pipeline wants it to exist."""

    name: str
    color: str
    description: str


@dataclass(frozen=True)
class Issue:
    """An issue (never a pull request: the client drops those from lists).

    `edits` says who last edited the body (GraphQL's reads); None when the read could not
    say (REST's), which the trust rules treat as an edit they cannot trust (TRUST-12).
    `milestone` is its milestone's title.
    """

    number: int
    id: int
    node_id: str
    title: str
    body: str
    state: Literal["open", "closed"]
    state_reason: str | None
    author: str
    labels: tuple[str, ...]
    created_at: datetime
    updated_at: datetime
    html_url: str
    edits: Edits | None = None
    assignees: tuple[str, ...] = ()
    milestone: str | None = None


@dataclass(frozen=True)
class IssuePage:
    """The open issues, or `not_modified` when the ETag still matches (then `issues` is empty)."""

    issues: tuple[Issue, ...]
    etag: str | None
    not_modified: bool


@dataclass(frozen=True)
class Comment:
    """An issue or PR conversation comment; `edits` and `node_id` as on `Issue` (GraphQL's
    reads say who last edited it, REST's do not)."""

    id: int
    author: str
    body: str
    created_at: datetime
    updated_at: datetime
    html_url: str
    edits: Edits | None = None
    node_id: str = ""


@dataclass(frozen=True)
class TextVersion:
    """One version of a body or comment in its edit history (GraphQL's `UserContentEdit`):
    who left it, when, and its text (None when the version was deleted from the history)."""

    editor: str
    edited_at: datetime
    text: str | None


@dataclass(frozen=True)
class CommentPage:
    """An issue's comments, or `not_modified` when the ETag still matches."""

    comments: tuple[Comment, ...]
    etag: str | None
    not_modified: bool


@dataclass(frozen=True)
class PullTalk:
    """A PR's head and its reviews and conversation comments, oldest first, read with its issue."""

    number: int
    head_sha: str
    reviews: tuple[Review, ...]
    comments: tuple[Comment, ...]


@dataclass(frozen=True)
class IssueThread:
    """An issue with every comment on it, oldest first, read together; `pulls` are the PRs
    of the branch asked for (each whole: one with more than 100 reviews or comments is left
    out)."""

    issue: Issue
    comments: tuple[Comment, ...]
    pulls: tuple[PullTalk, ...] = ()


@dataclass(frozen=True)
class PullRequest:
    """A pull request as the merge rules need it.

    `mergeable` is None while the forge is still computing it
    (`mergeable_state == "unknown"`). `requested_reviewers` are the logins whose review is
    requested and not given yet.
    """

    number: int
    id: int
    node_id: str
    title: str
    body: str
    state: Literal["open", "closed"]
    draft: bool
    merged: bool
    mergeable: bool | None
    mergeable_state: str
    head_ref: str
    head_sha: str
    base_ref: str
    base_sha: str
    author: str
    html_url: str
    merge_commit_sha: str | None
    requested_reviewers: tuple[str, ...] = ()
    merged_by: str | None = None  # who merged it (None: not merged, or the forge does not say)


@dataclass(frozen=True)
class MergeResult:
    """A successful merge: the commit it made on the base."""

    sha: str
    message: str


@dataclass(frozen=True)
class Branch:
    """A branch and the commit it points to."""

    name: str
    sha: str
    protected: bool


CheckStatus = Literal["queued", "in_progress", "completed", "waiting", "requested", "pending"]


@dataclass(frozen=True)
class CheckRun:
    """One check run on a commit."""

    id: int
    name: str
    head_sha: str
    status: str
    conclusion: str | None
    started_at: datetime | None
    completed_at: datetime | None
    summary: str | None
    details_url: str | None


@dataclass(frozen=True)
class CommitStatus:
    """One commit status (the older API beside check runs)."""

    id: int
    context: str
    state: Literal["error", "failure", "pending", "success"]
    description: str | None
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class RequiredChecks:
    """The base branch's protection: the check names it requires, and whether
    the branch must be up to date with the base before merging."""

    contexts: tuple[str, ...]
    strict: bool


@dataclass(frozen=True)
class RepoInfo:
    """Facts about the repository."""

    full_name: str
    id: int
    default_branch: str
    clone_url: str
    private: bool
    has_wiki: bool
    wiki_clone_url: str | None
