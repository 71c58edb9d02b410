"""Changing pull requests: open one, edit it, close or reopen it, draft or ready."""

from __future__ import annotations

import sqlite3

from conveyor.emulator.model.check_rows import queue_ci_run
from conveyor.emulator.model.content_edits import record_edit
from conveyor.emulator.model.fork_rows import set_head_repo
from conveyor.emulator.model.pull_rows import Pull, get_pull, update_pull
from conveyor.emulator.model.records import (
    create_issue_row,
    permission_of,
    set_issue_state,
    touch_issue,
)
from conveyor.emulator.model.store import Store


def can_write_pull(store: Store, pull: Pull, user_id: int) -> bool:
    """Whether `user_id` may change the PR: its author, or anyone with push access."""
    if pull.author_id == user_id:
        return True
    repo = store.one("SELECT * FROM repos WHERE id = ?", (pull.repo_id,))
    assert repo is not None
    return permission_of(store, repo, user_id) in {"write", "maintain", "admin"}


def _reload(store: Store, pull: Pull) -> Pull:
    fresh = get_pull(store, pull.repo_id, pull.number)
    assert fresh is not None
    return fresh


def open_pull(
    store: Store,
    repo_id: int,
    *,
    author_id: int,
    title: str,
    body: str | None,
    head: tuple[str, str],
    base: tuple[str, str],
    draft: bool,
    head_repo_id: int | None = None,
) -> Pull | None:
    """Open a PR from `head` to `base` ((branch, SHA) each) and queue its CI; `head_repo_id`
    names the fork the head branch lives in (None: this repository).

    None when an open PR already joins that head and base.
    """
    head_repo = repo_id if head_repo_id is None else head_repo_id
    with store.tx() as conn:
        clash = conn.execute(
            "SELECT 1 FROM pulls p JOIN issues i ON i.id = p.issue_id WHERE p.repo_id = ? "
            "AND p.head_ref = ? AND p.base_ref = ? AND i.state = 'open' AND COALESCE("
            "(SELECT h.head_repo_id FROM pull_heads h WHERE h.issue_id = p.issue_id), p.repo_id)"
            " = ?",
            (repo_id, head[0], base[0], head_repo),
        ).fetchone()
        if clash is not None:
            return None
        issue = create_issue_row(
            store, conn, repo_id, title=title, body=body, author_id=author_id, is_pull=True
        )
        conn.execute(
            "INSERT INTO pulls (issue_id, id, repo_id, head_ref, head_sha, base_ref, base_sha, "
            "draft) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (issue["id"], store.next_id(conn), repo_id, *head, *base, int(draft)),
        )
        if head_repo != repo_id:
            set_head_repo(conn, int(issue["id"]), head_repo)
        queue_ci_run(store, conn, repo_id, head[1])
    pull = get_pull(store, repo_id, int(issue["number"]))
    assert pull is not None
    return pull


def set_draft(store: Store, pull: Pull, *, draft: bool) -> Pull:
    """Mark the PR as a draft or ready for review."""
    with store.tx() as conn:
        if pull.draft != draft:
            update_pull(conn, pull.issue_id, draft=int(draft))
            touch_issue(conn, pull.issue_id)
    return _reload(store, pull)


def edited_changes(before: Pull, after: Pull) -> dict[str, dict[str, str]]:
    """An `edited` event's `changes`: each of title and body that an edit changed, with its
    old text (REST's PATCH and GraphQL's updatePullRequest send the same)."""
    return {
        name: {"from": old or ""}
        for name, old, new in (
            ("title", before.title, after.title),
            ("body", before.body, after.body),
        )
        if old != new
    }


def edit_pull(
    store: Store,
    pull: Pull,
    *,
    title: str | None,
    body: str | None,
    base_ref: str | None,
    editor_id: int,
) -> Pull:
    """Change the PR's title, body or base branch; a changed body is kept in the PR's edit
    history with `editor_id` as its editor (GraphQL's `userContentEdits`), as an issue's is."""
    with store.tx() as conn:
        if title is not None:
            conn.execute("UPDATE issues SET title = ? WHERE id = ?", (title, pull.issue_id))
        if body is not None:
            row = conn.execute("SELECT * FROM issues WHERE id = ?", (pull.issue_id,)).fetchone()
            record_edit(store, conn, "issue", row, new=body, editor_id=editor_id)
            conn.execute("UPDATE issues SET body = ? WHERE id = ?", (body, pull.issue_id))
        if base_ref is not None and base_ref != pull.base_ref:
            update_pull(conn, pull.issue_id, base_ref=base_ref)
        touch_issue(conn, pull.issue_id)
    return _reload(store, pull)


def close_pull(store: Store, pull: Pull, by_id: int, base_sha: str) -> Pull:
    """Close the PR without merging, recording where its base was."""
    with store.tx() as conn:
        set_issue_state(conn, pull.issue_id, "closed", None, by_id)
        conn.execute("UPDATE issues SET state_reason = NULL WHERE id = ?", (pull.issue_id,))
        update_pull(conn, pull.issue_id, base_sha=base_sha)
    return _reload(store, pull)


def reopen_pull(store: Store, pull: Pull, head_sha: str) -> Pull | None:
    """Reopen a closed, unmerged PR at `head_sha` and queue its CI (None: another PR is open)."""
    with store.tx() as conn:
        if _open_clash(conn, pull):
            return None
        set_issue_state(conn, pull.issue_id, "open", None, None)
        conn.execute("UPDATE issues SET state_reason = NULL WHERE id = ?", (pull.issue_id,))
        update_pull(conn, pull.issue_id, head_sha=head_sha, computed_for=None, seen_for=None)
        queue_ci_run(store, conn, pull.repo_id, head_sha)
    return _reload(store, pull)


def _open_clash(conn: sqlite3.Connection, pull: Pull) -> bool:
    row = conn.execute(
        "SELECT 1 FROM pulls p JOIN issues i ON i.id = p.issue_id WHERE p.repo_id = ? "
        "AND p.head_ref = ? AND p.base_ref = ? AND i.state = 'open' AND p.issue_id != ?",
        (pull.repo_id, pull.head_ref, pull.base_ref, pull.issue_id),
    ).fetchone()
    return row is not None
