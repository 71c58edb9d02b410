"""Merging a PR: a real squash commit on its base, GitHub's refusals, and `Closes #N`.

Merging into the default branch closes the issues the PR body names.
"""

from __future__ import annotations

import sqlite3

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from conveyor.emulator.hooks.events import emit_issue, emit_pull
from conveyor.emulator.hooks.push import deliver_moves
from conveyor.emulator.model.check_rows import check_passed
from conveyor.emulator.model.http import (
    ApiError,
    field_str,
    json_response,
    no_content,
    not_found,
    read_json,
    require_user,
)
from conveyor.emulator.model.pull_rows import Pull, closing_numbers, get_pull, update_pull
from conveyor.emulator.model.records import permission_of, set_issue_state
from conveyor.emulator.model.shapes import now_iso
from conveyor.emulator.model.state import EmulatorState
from conveyor.emulator.repos.mergeability import check_merge
from conveyor.emulator.repos.pull_shape import RepoView
from conveyor.emulator.repos.pushes import apply_push
from conveyor.emulator.repos.required import required_for
from conveyor.emulator.rest.pulls import repo_context, require_pull
from conveyor.git import (
    GitEnv,
    GitError,
    Identity,
    Repo,
    commit_tree,
    log_commits,
    try_rev_parse,
    update_ref,
)

_REFUSED = {
    "merge": "Merge commits are not allowed on this repository.",
    "rebase": "Rebase merges are not allowed on this repository.",
}


def squash_message(view: RepoView, pull: Pull, base_sha: str, title: str, extra: str) -> str:
    """`TITLE (#N)`, a blank line, the squashed commits' subjects, then `extra` if any."""
    suffix = f"(#{pull.number})"
    head_line = title if title.rstrip().endswith(suffix) else f"{title} {suffix}"
    # The PR's commits, as GitHub lists them: reachable from the head, not from the base.
    subjects = [f"* {c.subject}" for c in log_commits(view.bare, base_sha, pull.head_sha)]
    parts = [head_line, "\n\n".join(subjects), extra.strip()]
    return "\n\n".join(part for part in parts if part) + "\n"


def _refuse_unmet_protection(state: EmulatorState, pull: Pull, behind: bool) -> None:
    protection = required_for(state.store, pull.repo_id, pull.base_ref)
    if protection is None:
        return
    if protection.strict and behind:
        raise ApiError(405, "Head branch is not up to date with the base branch.")
    for context in protection.contexts:
        passed = check_passed(state.store, pull.repo_id, pull.head_sha, context)
        if passed is None:
            raise ApiError(405, f'Required status check "{context}" is expected.')
        if not passed:
            raise ApiError(405, f'Required status check "{context}" is failing.')


async def merge_route(request: Request) -> Response:
    """`PUT .../pulls/{number}/merge` (squash only, as this repository allows)."""
    user = require_user(request)
    body = await read_json(request) or {}  # read first: nothing below awaits, so no interleaving
    if not isinstance(body, dict):
        raise ApiError(400, "Problems parsing JSON")
    state, repo, view = repo_context(request)
    pull = require_pull(state, repo, request)
    if permission_of(state.store, repo, int(user["id"])) not in {"write", "maintain", "admin"}:
        raise ApiError(403, "Must have push access to repository")
    _refuse_request(body, pull)
    base_sha, tree = _squash_tree(state, view, pull)
    title = field_str(body, "commit_title", "PullRequest") or pull.title
    extra = field_str(body, "commit_message", "PullRequest") or ""
    message = squash_message(view, pull, base_sha, title, extra)
    commit = commit_tree(_as_author(view.bare, user), tree, [base_sha], message)
    try:
        update_ref(view.bare, f"refs/heads/{pull.base_ref}", commit, base_sha)
    except GitError as exc:  # the base moved between our read and the write
        raise ApiError(409, "Base branch was modified. Review and try the merge again.") from exc
    closed = _after_merge(state, repo, pull, int(user["id"]), base_sha=base_sha, commit=commit)
    merged = get_pull(state.store, int(repo["id"]), pull.number)
    if merged is not None:
        emit_pull(request, repo, merged, "closed")
    for issue_id in closed:
        emit_issue(request, repo, issue_id, "closed")
    return json_response(
        {"sha": commit, "merged": True, "message": "Pull Request successfully merged"}
    )


def _refuse_request(body: dict[str, object], pull: Pull) -> None:
    """GitHub's refusals of the request itself: the method, a closed or draft PR, a stale head."""
    method = field_str(body, "merge_method", "PullRequest") or "squash"
    if method in _REFUSED:
        raise ApiError(405, _REFUSED[method])
    if method != "squash":
        raise ApiError(
            422,
            "Validation Failed",
            [{"resource": "PullRequest", "field": "merge_method", "code": "invalid"}],
        )
    if pull.state != "open":
        raise ApiError(405, "Pull Request is not mergeable")
    if pull.draft:
        raise ApiError(405, "Pull Request is still a draft")
    sha = field_str(body, "sha", "PullRequest")
    if sha is not None and sha != pull.head_sha:
        raise ApiError(409, "Head branch was modified. Review and try the merge again.")


def _squash_tree(state: EmulatorState, view: RepoView, pull: Pull) -> tuple[str, str]:
    """The base's SHA and the merged tree; refused when the base is gone, conflicts or
    branch protection is unmet."""
    base_sha = try_rev_parse(view.bare, f"refs/heads/{pull.base_ref}")
    if base_sha is None:
        raise ApiError(405, "Base branch was deleted")
    check = check_merge(view.bare, base_sha, pull.head_sha)
    if check.conflicts or check.tree is None:
        raise ApiError(405, "Merge conflict")
    _refuse_unmet_protection(state, pull, check.behind)
    return base_sha, check.tree


def _after_merge(
    state: EmulatorState, repo: sqlite3.Row, pull: Pull, user_id: int, *, base_sha: str, commit: str
) -> list[int]:
    """Record the merge, move the base as a push would, close the issues the body names
    (into the default branch only); the closed issues' ids."""
    with state.store.tx() as conn:
        _record_merge(conn, pull, user_id, base_sha, commit)
        # The base moved without a push: treat it as one (PRs headed there follow, CI runs).
        moves = apply_push(
            state.store, conn, int(repo["id"]), commit, f"refs/heads/{pull.base_ref}"
        )
        closed: list[int] = []
        if pull.base_ref == repo["default_branch"]:
            numbers = closing_numbers(pull.body)
            closed = _close_issues(conn, int(repo["id"]), numbers, user_id)
    deliver_moves(state, moves, user_id)
    return closed


def _as_author(bare: Repo, user: sqlite3.Row) -> Repo:
    """`bare`, authoring as the merging user and committing as GitHub does."""
    login = str(user["login"])
    author = Identity(login, f"{user['id']}+{login}@users.noreply.localhost")
    committer = {"GIT_COMMITTER_NAME": "GitHub", "GIT_COMMITTER_EMAIL": "noreply@github.com"}
    return Repo(bare.path, GitEnv(bare.env.config_global, author, None, committer))


def _record_merge(
    conn: sqlite3.Connection, pull: Pull, user_id: int, base_sha: str, commit: str
) -> None:
    set_issue_state(conn, pull.issue_id, "closed", None, user_id)
    conn.execute("UPDATE issues SET state_reason = NULL WHERE id = ?", (pull.issue_id,))
    update_pull(
        conn,
        pull.issue_id,
        merged_at=now_iso(),
        merged_by_id=user_id,
        merge_commit_sha=commit,
        base_sha=base_sha,
    )


def _close_issues(conn: sqlite3.Connection, repo_id: int, numbers: list[int], by: int) -> list[int]:
    """Close the open issues `numbers` names; their ids."""
    closed: list[int] = []
    for number in numbers:
        row = conn.execute(
            "SELECT id FROM issues WHERE repo_id = ? AND number = ? AND is_pull = 0 "
            "AND state = 'open'",
            (repo_id, number),
        ).fetchone()
        if row is not None:
            set_issue_state(conn, int(row["id"]), "closed", "completed", by)
            closed.append(int(row["id"]))
    return closed


async def merged_route(request: Request) -> Response:
    """`GET .../pulls/{number}/merge`: 204 when merged, 404 otherwise."""
    state, repo, _ = repo_context(request)
    if not require_pull(state, repo, request).merged:
        raise not_found()
    return no_content()


_MERGE = "/repos/{owner}/{repo}/pulls/{number:int}/merge"
ROUTES = [
    Route(_MERGE, merge_route, methods=["PUT"]),
    Route(_MERGE, merged_route, methods=["GET"]),
]
