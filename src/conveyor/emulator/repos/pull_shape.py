"""GitHub's JSON for pull requests (`pull-request` and `pull-request-simple`)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

from conveyor.emulator.model.assign_rows import people_of
from conveyor.emulator.model.fork_rows import head_repo_of
from conveyor.emulator.model.issue_rows import association_of, issue_labels
from conveyor.emulator.model.pull_rows import Pull
from conveyor.emulator.model.records import clone_url
from conveyor.emulator.model.review_rows import submitted_comments
from conveyor.emulator.model.shapes import label_json, repo_api_url, repo_html_url, repo_json
from conveyor.emulator.model.shapes import user_json as simple_user_json
from conveyor.emulator.model.state import EmulatorState
from conveyor.emulator.repos.mergeability import base_sha_of, mergeability
from conveyor.emulator.repos.pushes import repo_git
from conveyor.git import GitError, Repo, count_commits, diff_stat, merge_base

_STATS: dict[tuple[str, str, str], tuple[int, int, int, int]] = {}


@dataclass(frozen=True)
class RepoView:
    """What every PR of one repository shares in its JSON: names, URLs and the repo object."""

    base: str
    owner: str
    name: str
    repo: dict[str, Any]
    bare: Repo
    row: sqlite3.Row

    @property
    def api(self) -> str:
        """`{base}/repos/OWNER/NAME`."""
        return repo_api_url(self.base, self.owner, self.name)


def repo_view(state: EmulatorState, base: str, repo: sqlite3.Row) -> RepoView:
    """The shared parts for repository row `repo` (which has an `owner_login` column)."""
    store = state.store
    owner = store.one("SELECT * FROM users WHERE id = ?", (repo["owner_id"],))
    assert owner is not None
    open_count = store.one(
        "SELECT COUNT(*) AS n FROM issues WHERE repo_id = ? AND state = 'open'", (repo["id"],)
    )
    url = clone_url(state.data_dir, owner["login"], repo["name"])
    data = repo_json(base, repo, owner, url, int(open_count["n"]) if open_count else 0)
    bare = repo_git(store, state.data_dir, int(repo["id"]))
    return RepoView(base, owner["login"], repo["name"], data, bare, repo)


def _user(state: EmulatorState, base: str, user_id: int | None) -> dict[str, Any] | None:
    if user_id is None:
        return None
    row = state.store.one("SELECT * FROM users WHERE id = ?", (user_id,))
    return simple_user_json(base, row) if row is not None else None


def _stats(view: RepoView, base_sha: str, head_sha: str) -> tuple[int, int, int, int]:
    """(commits, additions, deletions, changed files), cached per (repo, base, head)."""
    key = (str(view.bare.path), base_sha, head_sha)
    if len(_STATS) > 4096:  # a bound, not an LRU: recomputing is cheap
        _STATS.clear()
    if key not in _STATS:
        try:
            fork = merge_base(view.bare, base_sha, head_sha) or base_sha
            size = diff_stat(view.bare, fork, head_sha)
            commits = count_commits(view.bare, base_sha, head_sha)
            _STATS[key] = (commits, size.additions, size.deletions, size.files)
        except GitError:
            _STATS[key] = (0, 0, 0, 0)
    return _STATS[key]


def pull_json(state: EmulatorState, view: RepoView, pull: Pull, *, full: bool) -> dict[str, Any]:
    """A PR as GitHub shows it; `full` adds the fields only `GET .../pulls/{n}` has."""
    n = pull.number
    api, html = (
        f"{view.api}/pulls/{n}",
        f"{repo_html_url(view.base, view.owner, view.name)}/pull/{n}",
    )
    issue_api = f"{view.api}/issues/{n}"
    author = _user(state, view.base, pull.author_id)
    owner_user = view.repo["owner"]
    base_sha = base_sha_of(view.bare, pull)
    labels = issue_labels(state.store, pull.issue_id)
    assignees = people_of(state.store, "issue_assignees", [pull.issue_id]).get(pull.issue_id, [])
    asked = people_of(state.store, "review_requests", [pull.issue_id]).get(pull.issue_id, [])
    links = {
        "self": api,
        "html": html,
        "issue": issue_api,
        "comments": f"{issue_api}/comments",
        "review_comments": f"{api}/comments",
        "review_comment": f"{view.api}/pulls/comments{{/number}}",
        "commits": f"{api}/commits",
        "statuses": f"{view.api}/statuses/{pull.head_sha}",
    }
    data: dict[str, Any] = {
        "url": api,
        "id": pull.id,
        "node_id": pull.node_id,
        "html_url": html,
        "diff_url": f"{html}.diff",
        "patch_url": f"{html}.patch",
        "issue_url": issue_api,
        "commits_url": links["commits"],
        "review_comments_url": links["review_comments"],
        "review_comment_url": links["review_comment"],
        "comments_url": links["comments"],
        "statuses_url": links["statuses"],
        "number": n,
        "state": pull.state,
        "locked": pull.locked,
        "title": pull.title,
        "user": author,
        "body": pull.body,
        "labels": [_label(view, label, full=full) for label in labels],
        "milestone": None,
        "active_lock_reason": None,
        "created_at": pull.created_at,
        "updated_at": pull.updated_at,
        "closed_at": pull.closed_at,
        "merged_at": pull.merged_at,
        "merge_commit_sha": pull.merge_commit_sha,
        "assignee": simple_user_json(view.base, assignees[0]) if assignees else None,
        "assignees": [simple_user_json(view.base, user) for user in assignees],
        "requested_reviewers": [simple_user_json(view.base, user) for user in asked],
        "requested_teams": [],
        "head": _head(state, view, pull),
        "base": _end(view, pull.base_ref, base_sha, owner_user),
        "_links": {key: {"href": href} for key, href in links.items()},
        "author_association": association_of(state.store, view.row, pull.author_id),
        "auto_merge": None,
        "draft": pull.draft,
    }
    if full:
        merge = mergeability(state.store, pull)
        commits, additions, deletions, files = _stats(view, base_sha, pull.head_sha)
        comments = state.store.one(
            "SELECT COUNT(*) AS n FROM comments WHERE issue_id = ?", (pull.issue_id,)
        )
        data.update(
            merged=pull.merged,
            mergeable=merge.mergeable,
            rebaseable=merge.mergeable,
            mergeable_state=merge.state,
            merged_by=_user(state, view.base, pull.merged_by_id),
            comments=int(comments["n"]) if comments else 0,
            review_comments=submitted_comments(state.store, pull.issue_id),
            maintainer_can_modify=False,
            commits=commits,
            additions=additions,
            deletions=deletions,
            changed_files=files,
        )
    return data


def _label(view: RepoView, label: sqlite3.Row, *, full: bool) -> dict[str, Any]:
    """A PR's label: `pull-request-simple` (the list) describes `description` as a string."""
    data = label_json(view.base, view.owner, view.name, label)
    if not full and data["description"] is None:
        data["description"] = ""
    return data


def _head(state: EmulatorState, view: RepoView, pull: Pull) -> dict[str, Any]:
    """The PR's head: in this repository, or in a fork (its owner, its repository)."""
    head_repo = head_repo_of(state.store, pull.issue_id, pull.repo_id)
    if head_repo == pull.repo_id:
        return _end(view, pull.head_ref, pull.head_sha, view.repo["owner"])
    row = state.store.one(
        "SELECT repos.*, users.login AS owner_login FROM repos JOIN users "
        "ON users.id = repos.owner_id WHERE repos.id = ?",
        (head_repo,),
    )
    if row is None:  # the fork is gone: GitHub shows a null head repository
        return {**_end(view, pull.head_ref, pull.head_sha, view.repo["owner"]), "repo": None}
    fork = repo_view(state, view.base, row)
    return _end(fork, pull.head_ref, pull.head_sha, fork.repo["owner"]) | {
        "repo": {**fork.repo, "fork": True}
    }


def _end(view: RepoView, ref: str, sha: str, owner: dict[str, Any]) -> dict[str, Any]:
    """A PR's head or base: label, ref, SHA, user and the full repository."""
    return {
        "label": f"{view.owner}:{ref}",
        "ref": ref,
        "sha": sha,
        "user": owner,
        "repo": view.repo,
    }
