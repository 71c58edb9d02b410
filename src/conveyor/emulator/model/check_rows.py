"""Check runs and commit statuses in the store: their tables and the queries on them."""

from __future__ import annotations

import sqlite3

from conveyor.emulator.model.shapes import now_iso
from conveyor.emulator.model.store import Store, make_node_id, register_schema

CHECKS_DDL = """
CREATE TABLE IF NOT EXISTS check_runs (
    id INTEGER PRIMARY KEY, repo_id INTEGER NOT NULL, node_id TEXT NOT NULL,
    head_sha TEXT NOT NULL, name TEXT NOT NULL, status TEXT NOT NULL, conclusion TEXT,
    started_at TEXT, completed_at TEXT, external_id TEXT, details_url TEXT, title TEXT,
    summary TEXT, text TEXT, app_id INTEGER, is_ci INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS check_runs_by_sha ON check_runs (repo_id, head_sha);
CREATE INDEX IF NOT EXISTS check_runs_ci_queue ON check_runs (is_ci, status);
CREATE TABLE IF NOT EXISTS statuses (
    id INTEGER PRIMARY KEY, repo_id INTEGER NOT NULL, node_id TEXT NOT NULL, sha TEXT NOT NULL,
    state TEXT NOT NULL, context TEXT NOT NULL, description TEXT, target_url TEXT,
    creator_id INTEGER, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS statuses_by_sha ON statuses (repo_id, sha);
"""
register_schema(CHECKS_DDL)

CI_CHECK_NAME = "ci"
CHECK_STATUSES = ("queued", "in_progress", "completed", "waiting", "requested", "pending")
CONCLUSIONS = (
    "success",
    "failure",
    "neutral",
    "cancelled",
    "skipped",
    "timed_out",
    "action_required",
)
STATUS_STATES = ("error", "failure", "pending", "success")


def insert_check_run(
    store: Store,
    conn: sqlite3.Connection,
    repo_id: int,
    head_sha: str,
    name: str,
    *,
    status: str = "queued",
    is_ci: bool = False,
    **fields: object,
) -> int:
    """Insert a check run (inside `tx`); its id. `fields` sets optional columns."""
    ident = store.next_id(conn)
    now = now_iso()
    values: dict[str, object] = {
        "id": ident,
        "repo_id": repo_id,
        "node_id": make_node_id("CR", ident),
        "head_sha": head_sha,
        "name": name,
        "status": status,
        "is_ci": int(is_ci),
        "created_at": now,
        **fields,
    }
    if status == "in_progress" and values.get("started_at") is None:
        values["started_at"] = now
    if status == "completed":
        values.setdefault("started_at", now)
        values["completed_at"] = values.get("completed_at") or now
    columns = ", ".join(values)
    marks = ", ".join("?" for _ in values)
    conn.execute(f"INSERT INTO check_runs ({columns}) VALUES ({marks})", tuple(values.values()))
    return ident


def update_check_run(conn: sqlite3.Connection, run_id: int, **fields: object) -> None:
    """Set columns of a check run (inside `tx`), stamping start and completion times."""
    now = now_iso()
    if fields.get("status") == "in_progress":
        fields.setdefault("started_at", now)
    if fields.get("status") == "completed" or fields.get("conclusion") is not None:
        fields["status"] = "completed"
        fields.setdefault("completed_at", now)
        conn.execute(
            "UPDATE check_runs SET started_at = COALESCE(started_at, ?) WHERE id = ?",
            (now, run_id),
        )
    if not fields:
        return
    columns = ", ".join(f"{name} = ?" for name in fields)
    conn.execute(f"UPDATE check_runs SET {columns} WHERE id = ?", (*fields.values(), run_id))


def check_run(store: Store, repo_id: int, run_id: int) -> sqlite3.Row | None:
    """One check run of a repository, or None."""
    return store.one("SELECT * FROM check_runs WHERE id = ? AND repo_id = ?", (run_id, repo_id))


def check_runs_for(store: Store, repo_id: int, sha: str) -> list[sqlite3.Row]:
    """Every check run on a commit, newest first."""
    return store.all(
        "SELECT * FROM check_runs WHERE repo_id = ? AND head_sha = ? ORDER BY id DESC",
        (repo_id, sha),
    )


def statuses_for(store: Store, repo_id: int, sha: str) -> list[sqlite3.Row]:
    """Every commit status on a commit, newest first."""
    return store.all(
        "SELECT * FROM statuses WHERE repo_id = ? AND sha = ? ORDER BY id DESC", (repo_id, sha)
    )


def latest_by_name(runs: list[sqlite3.Row], key: str) -> dict[str, sqlite3.Row]:
    """The newest row per `key` (`name` for check runs, `context` for statuses)."""
    latest: dict[str, sqlite3.Row] = {}
    for row in runs:  # newest first
        latest.setdefault(str(row[key]), row)
    return latest


def check_passed(store: Store, repo_id: int, sha: str, context: str) -> bool | None:
    """Whether the required check `context` passed on `sha` (None: not reported or pending)."""
    run = latest_by_name(check_runs_for(store, repo_id, sha), "name").get(context)
    if run is not None and run["status"] == "completed":
        return run["conclusion"] in {"success", "neutral", "skipped"}
    status = latest_by_name(statuses_for(store, repo_id, sha), "context").get(context)
    if status is not None and status["state"] != "pending":
        return bool(status["state"] == "success")
    return None


def queue_ci_run(store: Store, conn: sqlite3.Connection, repo_id: int, sha: str) -> int | None:
    """Queue a `ci` check run on `sha` when the repository has a CI command (inside `tx`).

    A run already queued or in progress for that commit is reused; its id, or None
    when the repository has no CI command.
    """
    repo = conn.execute("SELECT ci_command FROM repos WHERE id = ?", (repo_id,)).fetchone()
    if repo is None or not repo["ci_command"]:
        return None
    pending = conn.execute(
        "SELECT id FROM check_runs WHERE repo_id = ? AND head_sha = ? AND is_ci = 1 "
        "AND status IN ('queued', 'in_progress')",
        (repo_id, sha),
    ).fetchone()
    if pending is not None:
        return int(pending["id"])
    return insert_check_run(
        store, conn, repo_id, sha, CI_CHECK_NAME, is_ci=True, title="CI", summary="Queued."
    )
