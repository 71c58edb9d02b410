"""The emulator's SQLite store: a schema registry, per-thread connections and transactions.

How a module plugs in: call `register_schema(DDL)` at import time with
`CREATE TABLE IF NOT EXISTS ...` statements (and indexes); `Store.open(data_dir)`
creates every registered table. Read with `store.one` / `store.all`; write inside
`with store.tx() as conn:` (BEGIN IMMEDIATE, serialised in-process by a lock, nestable;
never `await` or run slow work inside it: the lock is held until it ends).
Ids come from one global sequence: `store.next_id(conn)` inside a transaction.
"""

from __future__ import annotations

import base64
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

_SCHEMAS: list[str] = []

# Ids start above 1000 so an issue's id can never be mistaken for its number.
FIRST_ID = 1000

CORE_DDL = """
CREATE TABLE IF NOT EXISTS id_seq (id INTEGER PRIMARY KEY AUTOINCREMENT);
CREATE TABLE IF NOT EXISTS users (
    id INTEGER PRIMARY KEY, login TEXT NOT NULL UNIQUE COLLATE NOCASE,
    type TEXT NOT NULL DEFAULT 'User', node_id TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tokens (
    token TEXT PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id),
    installation_id INTEGER, expires_at REAL);
CREATE TABLE IF NOT EXISTS apps (
    id INTEGER PRIMARY KEY, slug TEXT NOT NULL UNIQUE, owner_id INTEGER NOT NULL,
    bot_user_id INTEGER NOT NULL, public_key_pem TEXT NOT NULL, private_key_path TEXT NOT NULL,
    created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS installations (
    id INTEGER PRIMARY KEY, app_id INTEGER NOT NULL REFERENCES apps(id),
    repo_id INTEGER NOT NULL, created_at TEXT NOT NULL, UNIQUE (app_id, repo_id));
CREATE TABLE IF NOT EXISTS repos (
    id INTEGER PRIMARY KEY, owner_id INTEGER NOT NULL REFERENCES users(id), name TEXT NOT NULL,
    node_id TEXT NOT NULL, default_branch TEXT NOT NULL DEFAULT 'main',
    has_wiki INTEGER NOT NULL DEFAULT 0, ci_command TEXT, private INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL, pushed_at TEXT NOT NULL, updated_at TEXT NOT NULL,
    UNIQUE (owner_id, name));
CREATE TABLE IF NOT EXISTS collaborators (
    repo_id INTEGER NOT NULL, user_id INTEGER NOT NULL, permission TEXT NOT NULL,
    PRIMARY KEY (repo_id, user_id));
CREATE TABLE IF NOT EXISTS issues (
    id INTEGER PRIMARY KEY, repo_id INTEGER NOT NULL, number INTEGER NOT NULL,
    node_id TEXT NOT NULL, title TEXT NOT NULL, body TEXT, state TEXT NOT NULL DEFAULT 'open',
    state_reason TEXT, author_id INTEGER NOT NULL, locked INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL, closed_at TEXT,
    closed_by_id INTEGER, is_pull INTEGER NOT NULL DEFAULT 0, UNIQUE (repo_id, number));
CREATE INDEX IF NOT EXISTS issues_by_updated ON issues (repo_id, state, updated_at);
CREATE TABLE IF NOT EXISTS labels (
    id INTEGER PRIMARY KEY, repo_id INTEGER NOT NULL, name TEXT NOT NULL COLLATE NOCASE,
    node_id TEXT NOT NULL, color TEXT NOT NULL, description TEXT, UNIQUE (repo_id, name));
CREATE TABLE IF NOT EXISTS issue_labels (
    issue_id INTEGER NOT NULL, label_id INTEGER NOT NULL, PRIMARY KEY (issue_id, label_id));
CREATE TABLE IF NOT EXISTS comments (
    id INTEGER PRIMARY KEY, repo_id INTEGER NOT NULL, issue_id INTEGER NOT NULL,
    node_id TEXT NOT NULL, author_id INTEGER NOT NULL, body TEXT NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL, created_ms INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS comments_by_issue ON comments (issue_id, id);
CREATE TABLE IF NOT EXISTS sub_issues (
    parent_id INTEGER NOT NULL, child_id INTEGER NOT NULL PRIMARY KEY,
    position INTEGER NOT NULL);
"""


def register_schema(ddl: str) -> None:
    """Add DDL (idempotent `CREATE ... IF NOT EXISTS` statements) created by `Store.open`."""
    if ddl not in _SCHEMAS:
        _SCHEMAS.append(ddl)


register_schema(CORE_DDL)


def make_node_id(kind: str, ident: int) -> str:
    """A GitHub-looking global node id, e.g. `I_...` for issue 1234; `parse_node_id` reverses it."""
    raw = base64.urlsafe_b64encode(f"{kind}:{ident}".encode()).decode().rstrip("=")
    return f"{kind}_{raw}"


def parse_node_id(node_id: str) -> tuple[str, int] | None:
    """The (kind, id) a `make_node_id` value names, or None when it is not one."""
    kind, _, raw = node_id.partition("_")
    try:
        decoded = base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)).decode()
        inner_kind, _, ident = decoded.partition(":")
        return (kind, int(ident)) if inner_kind == kind else None
    except (ValueError, UnicodeDecodeError):
        return None


class Store:
    """The forge's database at `DATA_DIR/forge.sqlite`; safe to share between threads."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.path = data_dir / "forge.sqlite"
        self._local = threading.local()
        self._lock = threading.RLock()
        self._commits = 0

    @classmethod
    def open(cls, data_dir: Path) -> Store:
        """Open (creating when needed) the store under `data_dir` with every registered table."""
        data_dir.mkdir(parents=True, exist_ok=True)
        store = cls(data_dir)
        for ddl in _SCHEMAS:
            store.conn().executescript(ddl)
        with store.tx() as conn:
            if conn.execute("SELECT COUNT(*) FROM id_seq").fetchone()[0] == 0:
                conn.execute(
                    "INSERT OR IGNORE INTO sqlite_sequence (name, seq) VALUES ('id_seq', ?)",
                    (FIRST_ID,),
                )
        return store

    def conn(self) -> sqlite3.Connection:
        """This thread's connection (autocommit; transactions through `tx`)."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA busy_timeout=5000")
            conn.execute("PRAGMA synchronous=NORMAL")
            self._local.conn = conn
            self._local.depth = 0
        return conn

    @contextmanager
    def tx(self) -> Iterator[sqlite3.Connection]:
        """A write transaction; nested calls join the outer one."""
        conn = self.conn()
        with self._lock:
            if self._local.depth > 0:
                self._local.depth += 1
                try:
                    yield conn
                finally:
                    self._local.depth -= 1
                return
            conn.execute("BEGIN IMMEDIATE")
            self._local.depth = 1
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            else:
                conn.execute("COMMIT")
                self._commits += 1
            finally:
                self._local.depth = 0

    def version(self) -> tuple[int, int, int]:
        """A value that changes whenever anything was committed, here or by another process.

        Commits through this store are counted; `PRAGMA data_version` on this thread's
        connection moves when any other connection commits. The thread's id is part of
        the value since `data_version` only compares within one connection.
        """
        other = self.conn().execute("PRAGMA data_version").fetchone()[0]
        return self._commits, threading.get_ident(), int(other)

    def one(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Row | None:
        """The first row of a query, or None."""
        row: sqlite3.Row | None = self.conn().execute(sql, params).fetchone()
        return row

    def all(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        """Every row of a query."""
        return list(self.conn().execute(sql, params).fetchall())

    def next_id(self, conn: sqlite3.Connection) -> int:
        """A fresh id from the global sequence (call inside `tx`)."""
        cursor = conn.execute("INSERT INTO id_seq DEFAULT VALUES")
        ident = cursor.lastrowid
        assert ident is not None
        return ident

    def close(self) -> None:
        """Close this thread's connection (other threads' close when they end)."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None
