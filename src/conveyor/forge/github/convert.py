"""Turn githubkit's response models into the forge's own typed values."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from githubkit_schemas.latest.models import (
    BranchWithProtection,
    FullRepository,
    IssueComment,
    SimpleUser,
    Status,
    StatusCheckPolicy,
)
from githubkit_schemas.latest.models import (
    CheckRun as KitCheckRun,
)
from githubkit_schemas.latest.models import Issue as KitIssue
from githubkit_schemas.latest.models import (
    PullRequest as KitPullRequest,
)
from githubkit_schemas.latest.models import (
    ReposOwnerRepoIssuesIssueNumberPatchResponse200 as EditedIssue,
)

from conveyor.forge.types import (
    Branch,
    CheckRun,
    Comment,
    CommitStatus,
    Issue,
    PullRequest,
    RepoInfo,
    RequiredChecks,
)

_STATUS_STATES = ("error", "failure", "pending", "success")


def login_of(user: SimpleUser | None) -> str:
    """A user's login; `ghost` for a deleted account."""
    return user.login if user is not None else "ghost"  # GitHub's name for a deleted account


def _open_or_closed(state: str) -> Literal["open", "closed"]:
    return "open" if state == "open" else "closed"


def is_pull_request(issue: KitIssue) -> bool:
    """Whether an entry of the issues list is really a pull request."""
    return bool(issue.pull_request)


def to_issue(issue: KitIssue | EditedIssue) -> Issue:
    """An issue as the pipeline reads it (from a read, or from an edit's answer)."""
    labels: list[str] = []
    for label in issue.labels:
        name = label if isinstance(label, str) else label.name
        if isinstance(name, str):
            labels.append(name)
    return Issue(
        number=issue.number,
        id=issue.id,
        node_id=issue.node_id,
        title=issue.title,
        body=issue.body or "",
        state=_open_or_closed(issue.state),
        state_reason=issue.state_reason or None,
        author=login_of(issue.user),
        labels=tuple(labels),
        created_at=issue.created_at,
        updated_at=issue.updated_at,
        html_url=issue.html_url,
        assignees=tuple(u.login for u in issue.assignees)
        if isinstance(issue.assignees, list)
        else (),
        milestone=issue.milestone.title if issue.milestone is not None else None,
    )


def to_comment(comment: IssueComment) -> Comment:
    """A conversation comment."""
    return Comment(
        id=comment.id,
        author=login_of(comment.user),
        body=comment.body or "",
        created_at=comment.created_at,
        updated_at=comment.updated_at,
        html_url=comment.html_url,
        node_id=comment.node_id,
    )


def to_pull(pr: KitPullRequest, merge_commit_sha: str | None) -> PullRequest:
    """A pull request with its head, draft, merged and mergeable state.

    githubkit's current model dropped `merge_commit_sha`, so the caller reads
    it from the body (see `merge_commit_of`).
    """
    return PullRequest(
        number=pr.number,
        id=pr.id,
        node_id=pr.node_id,
        title=pr.title,
        body=pr.body or "",
        state=pr.state,
        draft=bool(pr.draft),
        merged=pr.merged,
        mergeable=pr.mergeable,
        mergeable_state=pr.mergeable_state,
        head_ref=pr.head.ref,
        head_sha=pr.head.sha,
        base_ref=pr.base.ref,
        base_sha=pr.base.sha,
        author=login_of(pr.user),
        html_url=pr.html_url,
        merge_commit_sha=merge_commit_sha,
        requested_reviewers=tuple(login_of(u) for u in pr.requested_reviewers or ()),
        merged_by=login_of(pr.merged_by) if pr.merged_by else None,
    )


def merge_commit_of(body: object) -> str | None:
    """`merge_commit_sha` of a PR's JSON body, when it is a string."""
    value = body.get("merge_commit_sha") if isinstance(body, dict) else None
    return value if isinstance(value, str) else None


def to_check_run(run: KitCheckRun) -> CheckRun:
    """A check run on a commit."""
    return CheckRun(
        id=run.id,
        name=run.name,
        head_sha=run.head_sha,
        status=run.status,
        conclusion=run.conclusion,
        started_at=run.started_at,
        completed_at=run.completed_at,
        summary=run.output.summary,
        details_url=run.details_url,
    )


def to_status(status: Status) -> CommitStatus:
    """A commit status; an unknown state reads as `error` rather than passing."""
    state = status.state if status.state in _STATUS_STATES else "error"
    return CommitStatus(
        id=status.id,
        context=status.context,
        state=state,  # type: ignore[arg-type]  # narrowed by the membership test above
        description=status.description,
        created_at=datetime.fromisoformat(status.created_at),
        updated_at=datetime.fromisoformat(status.updated_at),
    )


def to_branch(branch: BranchWithProtection) -> Branch:
    """A branch and its head commit."""
    return Branch(name=branch.name, sha=branch.commit.sha, protected=branch.protected)


def to_required(policy: StatusCheckPolicy) -> RequiredChecks:
    """The required status checks of a protected branch (contexts and app checks)."""
    names = list(policy.contexts)
    names.extend(check.context for check in policy.checks if check.context not in names)
    return RequiredChecks(contexts=tuple(names), strict=policy.strict)


def wiki_clone_url(clone_url: str) -> str:
    """The wiki repository beside a repository: `NAME.git` becomes `NAME.wiki.git`."""
    stem = clone_url.removesuffix(".git")
    return f"{stem}.wiki.git"


def to_repo(repo: FullRepository) -> RepoInfo:
    """The repository facts the pipeline needs."""
    return RepoInfo(
        full_name=repo.full_name,
        id=repo.id,
        default_branch=repo.default_branch,
        clone_url=repo.clone_url,
        private=repo.private,
        has_wiki=repo.has_wiki,
        wiki_clone_url=wiki_clone_url(repo.clone_url) if repo.has_wiki else None,
    )
