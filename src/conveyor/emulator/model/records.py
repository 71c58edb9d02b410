"""Shared reads and writes of the core tables: users, repositories, issue rows, permissions.

Routes and admin functions (this package's and the git half's) use these so that an
issue and a pull request share one number sequence per repository, and every change
to an issue bumps its `updated_at` the same way.
"""

from __future__ import annotations

import secrets
import sqlite3
from pathlib import Path

from conveyor.emulator.model.http import ApiError, not_found
from conveyor.emulator.model.shapes import now_iso
from conveyor.emulator.model.store import Store, make_node_id

PERMISSIONS = ("read", "triage", "write", "maintain", "admin")


def user_by_login(store: Store, login: str) -> sqlite3.Row | None:
    """The user with this login (case-insensitive), or None."""
    return store.one("SELECT * FROM users WHERE login = ?", (login,))


def ensure_user(store: Store, conn: sqlite3.Connection, login: str, kind: str = "User") -> int:
    """The id of the user `login`, created (type `kind`) when missing. Call inside `tx`."""
    row = conn.execute("SELECT id FROM users WHERE login = ?", (login,)).fetchone()
    if row is not None:
        return int(row["id"])
    ident = store.next_id(conn)
    conn.execute(
        "INSERT INTO users (id, login, type, node_id, created_at) VALUES (?, ?, ?, ?, ?)",
        (ident, login, kind, make_node_id("U" if kind == "User" else "BOT", ident), now_iso()),
    )
    return ident


def new_token(prefix: str = "ghp_") -> str:
    """A fresh random token in GitHub's style."""
    return prefix + secrets.token_urlsafe(27)


def bare_repo_path(data_dir: Path, owner: str, name: str, *, wiki: bool = False) -> Path:
    """`DIR/git/OWNER/NAME.git` (or `NAME.wiki.git`): where a repository's bare git lives."""
    return data_dir / "git" / owner / (f"{name}.wiki.git" if wiki else f"{name}.git")


def clone_url(data_dir: Path, owner: str, name: str, *, wiki: bool = False) -> str:
    """The `file://` clone URL of a repository (or its wiki)."""
    return bare_repo_path(data_dir, owner, name, wiki=wiki).resolve().as_uri()


def repo_row(store: Store, owner: str, name: str) -> sqlite3.Row | None:
    """The repository OWNER/NAME (with an extra `owner_login` column), or None."""
    return store.one(
        "SELECT repos.*, users.login AS owner_login FROM repos "
        "JOIN users ON users.id = repos.owner_id "
        "WHERE users.login = ? AND repos.name = ? COLLATE NOCASE",
        (owner, name),
    )


def require_repo(store: Store, owner: str, name: str) -> sqlite3.Row:
    """The repository OWNER/NAME, or a 404."""
    repo = repo_row(store, owner, name)
    if repo is None:
        raise not_found()
    return repo


# The tables whose rows a repository owns and a route names by id in its path.
OWNED_TABLES = frozenset({"hooks", "rulesets"})


def require_owned(store: Store, table: str, raw_id: str, repo: sqlite3.Row) -> sqlite3.Row:
    """The row of `table` whose id is `raw_id` (a path parameter) and that `repo` owns, or a 404."""
    if table not in OWNED_TABLES:
        msg = f"{table!r} is not a table of repository-owned rows"
        raise ValueError(msg)
    try:
        ident = int(raw_id)
    except ValueError:
        raise not_found() from None
    row = store.one(f"SELECT * FROM {table} WHERE id = ? AND repo_id = ?", (ident, repo["id"]))
    if row is None:
        raise not_found()
    return row


def split_slug(slug: str) -> tuple[str, str]:
    """`OWNER/NAME` split in two; ValueError naming the slug when it is not of that form."""
    owner, sep, name = slug.partition("/")
    if not sep or not owner or not name or "/" in name:
        msg = f"repository {slug!r} is not of the form OWNER/NAME"
        raise ValueError(msg)
    return owner, name


def permission_of(store: Store, repo: sqlite3.Row, user_id: int) -> str:
    """`admin`, `write`, ... for a collaborator or the owner; `read` for anyone else (public)."""
    if repo["owner_id"] == user_id:
        return "admin"
    row = store.one(
        "SELECT permission FROM collaborators WHERE repo_id = ? AND user_id = ?",
        (repo["id"], user_id),
    )
    if row is None:
        bot = store.one(
            "SELECT 1 FROM installations JOIN apps ON apps.id = installations.app_id "
            "WHERE installations.repo_id = ? AND apps.bot_user_id = ?",
            (repo["id"], user_id),
        )
        return "write" if bot is not None else "read"
    return str(row["permission"])


def require_push(store: Store, repo: sqlite3.Row, user: sqlite3.Row) -> None:
    """A 403 unless the user may write to the repository (labels, closing others' issues)."""
    if permission_of(store, repo, int(user["id"])) not in {"write", "maintain", "admin"}:
        raise ApiError(403, "Must have push access to repository")


def issue_row(store: Store, repo_id: int, number: int) -> sqlite3.Row | None:
    """Issue (or pull request) NUMBER of the repository, or None."""
    return store.one("SELECT * FROM issues WHERE repo_id = ? AND number = ?", (repo_id, number))


def require_issue(store: Store, repo_id: int, number: int) -> sqlite3.Row:
    """Issue (or pull request) NUMBER of the repository, or a 404."""
    row = issue_row(store, repo_id, number)
    if row is None:
        raise not_found()
    return row


def create_issue_row(
    store: Store,
    conn: sqlite3.Connection,
    repo_id: int,
    *,
    title: str,
    body: str | None,
    author_id: int,
    is_pull: bool = False,
) -> sqlite3.Row:
    """Insert an issue (or the issue row of a pull request) with the next number. Inside `tx`."""
    ident = store.next_id(conn)
    number = conn.execute(
        "SELECT COALESCE(MAX(number), 0) + 1 FROM issues WHERE repo_id = ?", (repo_id,)
    ).fetchone()[0]
    now = now_iso()
    conn.execute(
        "INSERT INTO issues (id, repo_id, number, node_id, title, body, author_id, created_at, "
        "updated_at, is_pull) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            ident,
            repo_id,
            number,
            make_node_id("PR" if is_pull else "I", ident),
            title,
            body,
            author_id,
            now,
            now,
            int(is_pull),
        ),
    )
    row: sqlite3.Row | None = conn.execute("SELECT * FROM issues WHERE id = ?", (ident,)).fetchone()
    assert row is not None
    return row


def touch_issue(conn: sqlite3.Connection, issue_id: int) -> None:
    """Bump an issue's `updated_at` (every comment and label change does). Inside `tx`."""
    conn.execute("UPDATE issues SET updated_at = ? WHERE id = ?", (now_iso(), issue_id))


def set_issue_state(
    conn: sqlite3.Connection, issue_id: int, state: str, reason: str | None, by_id: int | None
) -> None:
    """Close (with a reason) or reopen an issue, keeping `closed_at` GitHub's way. Inside `tx`."""
    now = now_iso()
    if state == "closed":
        conn.execute(
            "UPDATE issues SET state = 'closed', state_reason = ?, updated_at = ?, "
            "closed_at = CASE WHEN state = 'closed' THEN closed_at ELSE ? END, "
            "closed_by_id = COALESCE(?, closed_by_id) WHERE id = ?",
            (reason or "completed", now, now, by_id, issue_id),
        )
    else:
        conn.execute(
            "UPDATE issues SET state = 'open', updated_at = ?, closed_at = NULL, "
            "state_reason = CASE WHEN state = 'closed' THEN 'reopened' ELSE state_reason END "
            "WHERE id = ?",
            (now, issue_id),
        )
