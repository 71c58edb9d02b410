"""`snapshot.sqlite`: each open issue as last read from the forge, its comments' ETag and state.

The cache outlives the orchestrator, so the first tick after a restart asks
the forge only "changed since this ETag?". It is a cache: deleting the file
costs one full read. A cache written for another account or format is wiped.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from conveyor.core.state import IssueState
from conveyor.forge.types import Issue

CACHE_FILE = "snapshot.sqlite"
FORMAT = "1"
ANSWER_TTL = timedelta(minutes=10)
StateProblem = Literal["too-new", "undecodable"]
_DDL = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, value TEXT NOT NULL, at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS issues (number INTEGER PRIMARY KEY, entry TEXT NOT NULL);
"""


@dataclass(frozen=True, slots=True)
class CommentHead:
    """What the rules keep of a comment: who, when, and only its pipeline marker as `body`."""

    id: int
    author: str
    body: str
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class CachedIssue:
    """One open issue, its comments' ETag, its decoded state (or why it has none), its comments.

    `state_problem` is set when the state comment is from a newer Conveyor or
    does not decode (`state_detail` says why); `state` is None then, and also
    when the issue has no state comment yet.
    """

    issue: Issue
    comments_etag: str | None
    state: IssueState | None
    state_comment_id: int | None
    state_problem: StateProblem | None = None
    state_detail: str = ""
    duplicates: tuple[int, ...] = ()
    comments: tuple[CommentHead, ...] = ()


def _issue_json(issue: Issue) -> dict[str, Any]:
    data = asdict(issue)
    data["created_at"] = issue.created_at.isoformat()
    data["updated_at"] = issue.updated_at.isoformat()
    data["labels"] = list(issue.labels)
    data["assignees"] = list(issue.assignees)
    return data


def entry_json(entry: CachedIssue) -> str:
    """A cache entry as JSON text."""
    heads = [
        [c.id, c.author, c.body, c.created_at.isoformat(), c.updated_at.isoformat()]
        for c in entry.comments
    ]
    state = None if entry.state is None else entry.state.model_dump(mode="json")
    data = {
        "issue": _issue_json(entry.issue),
        "comments_etag": entry.comments_etag,
        "state": state,
        "state_comment_id": entry.state_comment_id,
        "state_problem": entry.state_problem,
        "state_detail": entry.state_detail,
        "duplicates": list(entry.duplicates),
        "comments": heads,
    }
    return json.dumps(data, separators=(",", ":"))


def entry_from_json(text: str) -> CachedIssue:
    """A cache entry back from JSON text (ValueError when it no longer fits the code)."""
    data = json.loads(text)
    raw = data["issue"]
    issue = Issue(
        number=raw["number"],
        id=raw["id"],
        node_id=raw["node_id"],
        title=raw["title"],
        body=raw["body"],
        state=raw["state"],
        state_reason=raw["state_reason"],
        author=raw["author"],
        labels=tuple(raw["labels"]),
        created_at=datetime.fromisoformat(raw["created_at"]),
        updated_at=datetime.fromisoformat(raw["updated_at"]),
        html_url=raw["html_url"],
        assignees=tuple(raw.get("assignees", ())),
        milestone=raw.get("milestone"),
    )
    try:
        state = None if data["state"] is None else IssueState.model_validate(data["state"])
    except ValidationError as exc:
        raise ValueError(str(exc)) from exc
    heads = tuple(
        CommentHead(i, a, b, datetime.fromisoformat(c), datetime.fromisoformat(u))
        for i, a, b, c, u in data["comments"]
    )
    return CachedIssue(
        issue=issue,
        comments_etag=data["comments_etag"],
        state=state,
        state_comment_id=data["state_comment_id"],
        state_problem=data["state_problem"],
        state_detail=data["state_detail"],
        duplicates=tuple(data["duplicates"]),
        comments=heads,
    )


class SnapshotStore:
    """The cache file: the issue list's ETag, the open issues, and the timed forge answers."""

    def __init__(self, path: Path, account: str) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(path, timeout=5.0)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA busy_timeout=5000")
        self._conn.executescript(_DDL)
        self._entries: dict[int, CachedIssue] | None = None
        if self._meta("format") != FORMAT or self._meta("account") != account:
            self._wipe(account)

    def close(self) -> None:
        """Close the file."""
        self._conn.close()

    def __enter__(self) -> SnapshotStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _meta(self, key: str) -> str | None:
        row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def _wipe(self, account: str) -> None:
        with self._conn:
            for table in ("meta", "answers", "issues"):
                self._conn.execute(f"DELETE FROM {table}")
            self._conn.executemany(
                "INSERT INTO meta VALUES (?, ?)", [("format", FORMAT), ("account", account)]
            )

    @property
    def list_etag(self) -> str | None:
        """The ETag of the last issue list read in full."""
        return self._meta("list_etag")

    @property
    def list_read_at(self) -> datetime | None:
        """When the issue list was last asked for (answered 200 or 304)."""
        text = self._meta("list_read_at")
        return None if text is None else datetime.fromisoformat(text)

    def note_list_read(self, now: datetime) -> None:
        """Remember that the issue list was asked for at `now`."""
        with self._conn:
            self._conn.execute(
                "INSERT OR REPLACE INTO meta VALUES ('list_read_at', ?)", (now.isoformat(),)
            )

    def entries(self) -> dict[int, CachedIssue]:
        """The cached open issues by number (an entry the code can no longer read is left out)."""
        if self._entries is None:
            found: dict[int, CachedIssue] = {}
            for number, text in self._conn.execute("SELECT number, entry FROM issues"):
                try:
                    found[int(number)] = entry_from_json(text)
                except (ValueError, KeyError, TypeError):
                    continue
            self._entries = found
        return dict(self._entries)

    def replace(self, list_etag: str | None, entries: list[CachedIssue]) -> None:
        """Store a full read: the list's ETag and exactly these open issues, in one transaction."""
        with self._conn:
            self._conn.execute("DELETE FROM issues")
            self._conn.executemany(
                "INSERT INTO issues VALUES (?, ?)",
                [(e.issue.number, entry_json(e)) for e in entries],
            )
            if list_etag is None:
                self._conn.execute("DELETE FROM meta WHERE key = 'list_etag'")
            else:
                self._conn.execute(
                    "INSERT OR REPLACE INTO meta VALUES ('list_etag', ?)", (list_etag,)
                )
        self._entries = {e.issue.number: e for e in entries}

    def forget(self) -> None:
        """Drop the list's ETag and every cached issue: the next read is a full one."""
        self.replace(None, [])

    def kept(self, key: str) -> str | None:
        """A value the tick keeps from one pass to the next (no expiry)."""
        return self._meta(f"kept:{key}")

    def keep(self, key: str, value: str) -> None:
        """Remember `value` under `key` until it is replaced."""
        with self._conn:
            self._conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (f"kept:{key}", value))

    def answer(self, key: str, now: datetime) -> str | None:
        """A forge answer stored less than ten minutes before `now`, else None."""
        row = self._conn.execute("SELECT value, at FROM answers WHERE key = ?", (key,)).fetchone()
        if row is None or not 0 <= now.timestamp() - float(row[1]) < ANSWER_TTL.total_seconds():
            return None
        return str(row[0])

    def put_answer(self, key: str, value: str, now: datetime) -> None:
        """Remember a forge answer as of `now`."""
        with self._conn:
            self._conn.execute(
                "INSERT OR REPLACE INTO answers VALUES (?, ?, ?)", (key, value, now.timestamp())
            )

    def answer_keys(self, prefix: str) -> frozenset[str]:
        """The keys of every stored answer starting with `prefix` (fresh or not)."""
        rows = self._conn.execute(
            "SELECT key FROM answers WHERE substr(key, 1, ?) = ?", (len(prefix), prefix)
        ).fetchall()
        return frozenset(str(row[0]) for row in rows)

    def drop_answers(self, keys: Iterable[str]) -> None:
        """Forget these answers (an answer that no longer holds)."""
        with self._conn:
            self._conn.executemany("DELETE FROM answers WHERE key = ?", [(k,) for k in keys])


def load_cached_issue(path: Path, number: int) -> CachedIssue | None:
    """One issue as the cache last saw it, read-only (None when the file or entry is missing)."""
    if not path.exists():
        return None
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5.0)
    try:
        row = conn.execute("SELECT entry FROM issues WHERE number = ?", (number,)).fetchone()
    except sqlite3.OperationalError:
        return None
    finally:
        conn.close()
    return None if row is None else entry_from_json(row[0])


def load_cached_issues(path: Path) -> dict[int, CachedIssue]:
    """Every issue the cache holds, read-only (empty when the file is missing or unreadable)."""
    if not path.exists():
        return {}
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5.0)
    try:
        rows = conn.execute("SELECT number, entry FROM issues").fetchall()
    except sqlite3.OperationalError:
        return {}
    finally:
        conn.close()
    found: dict[int, CachedIssue] = {}
    for number, text in rows:
        try:
            found[int(number)] = entry_from_json(text)
        except (ValueError, KeyError, TypeError):
            continue
    return found
