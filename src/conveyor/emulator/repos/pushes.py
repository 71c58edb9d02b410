"""Pushes: the `post-receive` hook's log of pushed refs and how the server applies it.

The hook (plain `sh`) appends one line per ref, `REPO_ID<TAB>OLD<TAB>NEW<TAB>REF`, to
`DATA/pushes.log`; the server reads what is new since the offset it stored, moves the
heads of open PRs (which queues CI; mergeability is recomputed from the new SHAs), retargets
or closes the open PRs based on a deleted branch, and at start-up also compares every open
PR's head with its branch. The moved heads are returned: `hooks.push` delivers each to
webhooks as `pull_request` `synchronize`.
"""

from __future__ import annotations

import shlex
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path

from conveyor.emulator.model.check_rows import queue_ci_run
from conveyor.emulator.model.fork_rows import head_repo_of, pulls_headed_in
from conveyor.emulator.model.pull_rows import Pull, get_pull, list_pulls, update_pull
from conveyor.emulator.model.records import bare_repo_path, set_issue_state, touch_issue
from conveyor.emulator.model.shapes import now_iso
from conveyor.emulator.model.state import EmulatorState
from conveyor.emulator.model.store import Store, register_schema
from conveyor.git import (
    ZERO_SHA,
    GitEnv,
    GitError,
    Identity,
    Repo,
    install_hook,
    read_ref,
    update_ref,
)

PUSH_LOG = "pushes.log"
register_schema(
    "CREATE TABLE IF NOT EXISTS push_log_offset (id INTEGER PRIMARY KEY CHECK (id = 1), "
    "offset_bytes INTEGER NOT NULL);"
)
FORGE_GIT_ENV = GitEnv(identity=Identity("GitHub", "noreply@github.com"))
_SYNC_LOCK = threading.Lock()


@dataclass(frozen=True)
class Moved:
    """An open PR's head moved from `before` to `after`."""

    repo_id: int
    number: int
    before: str
    after: str


def hook_script(data_dir: Path, repo_id: int) -> str:
    """The `post-receive` hook of repository `repo_id`: one log line per pushed ref."""
    log = shlex.quote(str((data_dir / PUSH_LOG).resolve()))
    return (
        "#!/bin/sh\n"
        "# Written by Conveyor's embedded forge: records pushed refs for the server.\n"
        "while read -r old new ref; do\n"
        f'  printf \'%s\\t%s\\t%s\\t%s\\n\' {repo_id} "$old" "$new" "$ref" >> {log}\n'
        "done\n"
    )


def repo_git(store: Store, data_dir: Path, repo_id: int) -> Repo:
    """The bare git repository of `repo_id`."""
    row = store.one(
        "SELECT u.login, r.name FROM repos r JOIN users u ON u.id = r.owner_id WHERE r.id = ?",
        (repo_id,),
    )
    if row is None:
        msg = f"no repository with id {repo_id}"
        raise LookupError(msg)
    return Repo(bare_repo_path(data_dir, row["login"], row["name"]), FORGE_GIT_ENV)


def read_push_log(state: EmulatorState) -> list[Moved]:
    """Apply the pushes logged since the last call (cheap when there are none): the PR heads
    they moved, which the caller delivers (`hooks.push.sync_pushes` does both)."""
    path = state.data_dir / PUSH_LOG
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return []
    store = state.store
    moves: list[Moved] = []
    with _SYNC_LOCK:
        row = store.one("SELECT offset_bytes FROM push_log_offset WHERE id = 1")
        offset = int(row["offset_bytes"]) if row else 0
        if size < offset:  # the log was removed and begun again
            offset = 0
        if size == offset:
            return []
        with path.open("rb") as log:
            log.seek(offset)
            data = log.read(size - offset)
        end = data.rfind(b"\n") + 1  # a line still being written waits for the next call
        if end == 0:
            return []
        with store.tx() as conn:
            for line in data[:end].decode(errors="replace").splitlines():
                fields = line.split("\t")
                if len(fields) == 4 and fields[0].isdigit():
                    moves += apply_push(store, conn, int(fields[0]), fields[2], fields[3])
            conn.execute(
                "INSERT OR REPLACE INTO push_log_offset (id, offset_bytes) VALUES (1, ?)",
                (offset + end,),
            )
    _publish_moves(state, moves)
    return moves


def _publish_moves(state: EmulatorState, moves: list[Moved]) -> None:
    for moved in moves:
        pull = get_pull(state.store, moved.repo_id, moved.number)
        if pull is not None:
            publish_head(state, pull)


def apply_push(
    store: Store, conn: sqlite3.Connection, repo_id: int, new: str, ref: str
) -> list[Moved]:
    """A ref of `repo_id` now points to `new` (zeros: deleted): the PR heads it moved. In `tx`."""
    if not ref.startswith("refs/heads/"):
        return []
    moves = []
    branch = ref.removeprefix("refs/heads/")
    conn.execute("UPDATE repos SET pushed_at = ? WHERE id = ?", (now_iso(), repo_id))
    headed = [
        get_pull(store, base, number) for base, number in pulls_headed_in(store, repo_id, branch)
    ]
    own = [
        p
        for p in list_pulls(store, repo_id, head_ref=branch)
        if head_repo_of(store, p.issue_id, repo_id) == repo_id
    ]
    for pull in [*own, *(p for p in headed if p is not None)]:
        if new == ZERO_SHA:  # GitHub closes a PR whose head branch is deleted
            set_issue_state(conn, pull.issue_id, "closed", None, None)
            conn.execute("UPDATE issues SET state_reason = NULL WHERE id = ?", (pull.issue_id,))
        elif new != pull.head_sha:
            moves.append(move_head(store, conn, pull, new))
    if new == ZERO_SHA:
        _base_deleted(store, conn, repo_id, branch)
    return moves


def _base_deleted(store: Store, conn: sqlite3.Connection, repo_id: int, branch: str) -> None:
    """Open PRs based on a deleted branch, as GitHub treats them: when the branch was the head
    of a merged PR they are retargeted onto that PR's base, otherwise they are closed."""
    merged = [p for p in list_pulls(store, repo_id, state="closed", head_ref=branch) if p.merged]
    for pull in list_pulls(store, repo_id, base_ref=branch):
        if merged:
            update_pull(conn, pull.issue_id, base_ref=merged[0].base_ref, computed_for=None)
            touch_issue(conn, pull.issue_id)
        else:
            set_issue_state(conn, pull.issue_id, "closed", None, None)
            conn.execute("UPDATE issues SET state_reason = NULL WHERE id = ?", (pull.issue_id,))


def move_head(store: Store, conn: sqlite3.Connection, pull: Pull, sha: str) -> Moved:
    """An open PR's head moved to `sha`: record it and queue CI. Inside `tx`."""
    update_pull(conn, pull.issue_id, head_sha=sha)
    touch_issue(conn, pull.issue_id)
    queue_ci_run(store, conn, pull.repo_id, sha)
    return Moved(pull.repo_id, pull.number, pull.head_sha, sha)


def install_hooks(state: EmulatorState) -> None:
    """(Re)write every repository's `post-receive` hook for this data folder (it may have moved)."""
    for row in state.store.all("SELECT id FROM repos"):
        bare = repo_git(state.store, state.data_dir, int(row["id"]))
        if bare.path.is_dir():
            install_hook(bare, "post-receive", hook_script(state.data_dir, int(row["id"])))


def reconcile_heads(state: EmulatorState) -> list[Moved]:
    """Bring every open PR's head in line with its branch (pushes while the server was down):
    the heads it moved, which the caller delivers (`hooks.push.reconcile_and_deliver`)."""
    store = state.store
    moves: list[Moved] = []
    repos = store.all("SELECT DISTINCT repo_id FROM pulls")
    for row in repos:
        repo_id = int(row["repo_id"])
        bare = repo_git(store, state.data_dir, repo_id)
        for pull in list_pulls(store, repo_id):
            if head_repo_of(store, pull.issue_id, repo_id) == repo_id:
                sha = read_ref(bare, f"refs/heads/{pull.head_ref}")
            else:
                sha = head_branch_sha(state, pull)
            if sha is not None and sha != pull.head_sha:
                with store.tx() as conn:
                    moves.append(move_head(store, conn, pull, sha))
    _publish_moves(state, moves)
    return moves


def publish_head(state: EmulatorState, pull: Pull) -> None:
    """Point the base repository's `refs/pull/N/head` at the PR's head (a fork's commits are
    there too: the base reads its forks' objects)."""
    bare = repo_git(state.store, state.data_dir, pull.repo_id)
    try:
        update_ref(bare, f"refs/pull/{pull.number}/head", pull.head_sha)
    except GitError:
        return  # the commit is gone (a fork deleted): the ref keeps what it had


def head_branch_sha(state: EmulatorState, pull: Pull) -> str | None:
    """The SHA of the PR's head branch in the repository that holds it (None: deleted)."""
    head_repo = head_repo_of(state.store, pull.issue_id, pull.repo_id)
    return read_ref(repo_git(state.store, state.data_dir, head_repo), f"refs/heads/{pull.head_ref}")
