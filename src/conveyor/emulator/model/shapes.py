"""GitHub's JSON shapes for users, repositories, labels, issues and comments, plus URL builders.

How a route module uses it: pass the server's `base` (`http.base_url(request)`) and
rows from the store (any mapping with the table's columns). Every field the OpenAPI
subset marks required is present. Timestamps are `now_iso()` strings.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Protocol
from urllib.parse import quote

from conveyor.emulator.model.repo_urls import REPO_URL_SUFFIXES

JSON = dict[str, Any]


class Row(Protocol):
    """A row read by column name: `sqlite3.Row` or a plain dict."""

    def __getitem__(self, key: str, /) -> Any: ...


def now_iso() -> str:
    """The current UTC time as GitHub writes it (`2024-01-02T03:04:05Z`)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def repo_api_url(base: str, owner: str, name: str) -> str:
    """`{base}/repos/OWNER/NAME`."""
    return f"{base}/repos/{owner}/{name}"


def repo_html_url(base: str, owner: str, name: str) -> str:
    """`{base}/OWNER/NAME` (the web address of a repository)."""
    return f"{base}/{owner}/{name}"


def user_json(base: str, user: Row) -> JSON:
    """A simple-user."""
    login = user["login"]
    url = f"{base}/users/{login}"
    return {
        "login": login,
        "id": user["id"],
        "node_id": user["node_id"],
        "avatar_url": f"{base}/avatars/{login}",
        "gravatar_id": "",
        "url": url,
        "html_url": f"{base}/{login}",
        "followers_url": f"{url}/followers",
        "following_url": f"{url}/following{{/other_user}}",
        "gists_url": f"{url}/gists{{/gist_id}}",
        "starred_url": f"{url}/starred{{/owner}}{{/repo}}",
        "subscriptions_url": f"{url}/subscriptions",
        "organizations_url": f"{url}/orgs",
        "repos_url": f"{url}/repos",
        "events_url": f"{url}/events{{/privacy}}",
        "received_events_url": f"{url}/received_events",
        "type": user["type"],
        "site_admin": False,
        "user_view_type": "public",
    }


def user_full_json(base: str, user: Row) -> JSON:
    """The private-user of `GET /user`."""
    return {
        **user_json(base, user),
        "user_view_type": "private",
        **dict.fromkeys(
            ("name", "company", "blog", "location", "email", "hireable", "bio", "twitter_username")
        ),
        **dict.fromkeys(
            (
                "public_repos",
                "public_gists",
                "followers",
                "following",
                "private_gists",
                "total_private_repos",
                "owned_private_repos",
                "disk_usage",
                "collaborators",
            ),
            0,
        ),
        "created_at": user["created_at"],
        "updated_at": user["created_at"],
        "two_factor_authentication": False,
    }


def collaborator_json(base: str, user: Row, permission: str) -> JSON:
    """A collaborator: a simple-user with its permissions and role name."""
    return {
        **user_json(base, user),
        "permissions": {
            "admin": permission == "admin",
            "maintain": permission in {"admin", "maintain"},
            "push": permission in {"admin", "maintain", "write"},
            "triage": permission in {"admin", "maintain", "write", "triage"},
            "pull": True,
        },
        "role_name": permission,
    }


def repo_json(base: str, repo: Row, owner: Row, clone_url: str, open_issues: int = 0) -> JSON:
    """A full-repository; `clone_url` is the bare repository's `file://` URL."""
    name = repo["name"]
    api = repo_api_url(base, owner["login"], name)
    html = repo_html_url(base, owner["login"], name)
    data: JSON = {
        "id": repo["id"],
        "node_id": repo["node_id"],
        "name": name,
        "full_name": f"{owner['login']}/{name}",
        "owner": user_json(base, owner),
        "private": bool(repo["private"]),
        "visibility": "private" if repo["private"] else "public",
        "html_url": html,
        "description": None,
        "fork": False,
        "url": api,
        **{key: api + suffix for key, suffix in REPO_URL_SUFFIXES.items()},
        "git_url": clone_url,
        "ssh_url": clone_url,
        "clone_url": clone_url,
        "svn_url": html,
        "mirror_url": None,
        "homepage": None,
        "language": None,
        "forks_count": 0,
        "forks": 0,
        "stargazers_count": 0,
        "watchers_count": 0,
        "watchers": 0,
        "size": 0,
        "default_branch": repo["default_branch"],
        "open_issues_count": open_issues,
        "open_issues": open_issues,
        "topics": [],
        "has_issues": True,
        "has_projects": False,
        "has_wiki": bool(repo["has_wiki"]),
        "has_pages": False,
        "has_downloads": False,
        "has_discussions": False,
        "archived": False,
        "disabled": False,
        "pushed_at": repo["pushed_at"],
        "created_at": repo["created_at"],
        "updated_at": repo["updated_at"],
        "allow_squash_merge": True,
        "allow_merge_commit": False,
        "allow_rebase_merge": False,
        "delete_branch_on_merge": False,
        "license": None,
        "network_count": 0,
        "subscribers_count": 0,
    }
    return data


def label_json(base: str, owner: str, repo: str, label: Row) -> JSON:
    """A label."""
    return {
        "id": label["id"],
        "node_id": label["node_id"],
        # Percent-encoded as GitHub does (`labels/good%20first%20issue`); a Location header
        # made from it must be ASCII.
        "url": f"{repo_api_url(base, owner, repo)}/labels/{quote(label['name'], safe='')}",
        "name": label["name"],
        "description": label["description"],
        "color": label["color"],
        "default": False,
        # githubkit's Label model requires both (GitHub sends them as null).
        "archived_at": None,
        "archived_by": None,
    }


def issue_json(
    base: str,
    owner: str,
    repo: str,
    issue: Row,
    *,
    author: Row,
    labels: Sequence[Row],
    comments: int,
    association: str = "NONE",
    closed_by: Row | None = None,
    sub_issues: tuple[int, int] = (0, 0),
    parent_url: str | None = None,
    assignees: Sequence[Row] = (),
    milestone: JSON | None = None,
) -> JSON:
    """An issue (pull requests too: those carry a `pull_request` key, as on GitHub)."""
    api = f"{repo_api_url(base, owner, repo)}/issues/{issue['number']}"
    html_kind = "pull" if issue["is_pull"] else "issues"
    html = f"{repo_html_url(base, owner, repo)}/{html_kind}/{issue['number']}"
    total, completed = sub_issues
    data: JSON = {
        "id": issue["id"],
        "node_id": issue["node_id"],
        "url": api,
        "repository_url": repo_api_url(base, owner, repo),
        "labels_url": f"{api}/labels{{/name}}",
        "comments_url": f"{api}/comments",
        "events_url": f"{api}/events",
        "html_url": html,
        "timeline_url": f"{api}/timeline",
        "number": issue["number"],
        "state": issue["state"],
        "state_reason": issue["state_reason"],
        "title": issue["title"],
        "body": issue["body"],
        "user": user_json(base, author),
        "labels": [label_json(base, owner, repo, label) for label in labels],
        "assignee": user_json(base, assignees[0]) if assignees else None,
        "assignees": [user_json(base, user) for user in assignees],
        "milestone": milestone,
        "locked": bool(issue["locked"]),
        "active_lock_reason": None,
        "comments": comments,
        "closed_at": issue["closed_at"],
        "created_at": issue["created_at"],
        "updated_at": issue["updated_at"],
        "closed_by": user_json(base, closed_by) if closed_by is not None else None,
        "author_association": association,
        "sub_issues_summary": {
            "total": total,
            "completed": completed,
            "percent_completed": (completed * 100 // total) if total else 0,
        },
        "parent_issue_url": parent_url,
    }
    if issue["is_pull"]:
        pulls = f"{repo_api_url(base, owner, repo)}/pulls/{issue['number']}"
        data["pull_request"] = {
            "url": pulls,
            "html_url": html,
            "diff_url": f"{html}.diff",
            "patch_url": f"{html}.patch",
        }
    return data


def comment_json(
    base: str,
    owner: str,
    repo: str,
    issue_number: int,
    comment: Row,
    *,
    author: Row,
    association: str = "NONE",
    page: str = "issues",
) -> JSON:
    """An issue comment (`page` is `pull` for a PR's: GitHub links it on the PR's page)."""
    api = repo_api_url(base, owner, repo)
    return {
        "id": comment["id"],
        "node_id": comment["node_id"],
        "url": f"{api}/issues/comments/{comment['id']}",
        "html_url": f"{repo_html_url(base, owner, repo)}/{page}/{issue_number}"
        f"#issuecomment-{comment['id']}",
        "issue_url": f"{api}/issues/{issue_number}",
        "body": comment["body"],
        "user": user_json(base, author),
        "created_at": comment["created_at"],
        "updated_at": comment["updated_at"],
        "author_association": association,
    }
