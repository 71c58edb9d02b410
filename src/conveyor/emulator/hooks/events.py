"""Sending events to a repository's webhooks: which hooks want one, its payload, the record.

A route that changed something calls `emit(request, repo, EVENT, ACTION, build)`;
`build` makes the event's own objects (`issue`, `comment`, `pull_request`, …)
and is only called when an active hook wants the event. Every payload gets
`repository` and `sender` (the request's user), as GitHub's do.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request

from conveyor.emulator.model.hook_queue import Outcome, Outgoing
from conveyor.emulator.model.http import base_url, current_user, emulator
from conveyor.emulator.model.issue_rows import issues_json
from conveyor.emulator.model.pull_rows import Pull
from conveyor.emulator.model.shapes import label_json, now_iso, repo_api_url, user_json
from conveyor.emulator.model.state import EmulatorState
from conveyor.emulator.model.store import register_schema
from conveyor.emulator.repos.pull_shape import pull_json, repo_view

register_schema(
    """
CREATE TABLE IF NOT EXISTS hooks (
    id INTEGER PRIMARY KEY, repo_id INTEGER NOT NULL, config TEXT NOT NULL,
    events TEXT NOT NULL, active INTEGER NOT NULL, created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL, last_code INTEGER, last_status TEXT,
    base TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS hook_deliveries (
    id INTEGER PRIMARY KEY AUTOINCREMENT, hook_id INTEGER NOT NULL, guid TEXT NOT NULL,
    event TEXT NOT NULL, action TEXT, status_code INTEGER NOT NULL, status TEXT NOT NULL,
    duration REAL NOT NULL, delivered_at TEXT NOT NULL);
"""
)
Objects = dict[str, Any]


@dataclass(frozen=True)
class Origin:
    """Where an event comes from: the emulator, the base URL its payload's links use, and
    the user whose change it was (`sender`)."""

    state: EmulatorState
    base: str
    sender: sqlite3.Row | None


def origin_of(request: Request) -> Origin:
    """The origin of a change made by `request`."""
    return Origin(emulator(request), base_url(request), current_user(request))


def hook_json(base: str, repo: sqlite3.Row, row: sqlite3.Row) -> dict[str, Any]:
    """GitHub's hook (the secret shown masked, as GitHub does)."""
    url = f"{repo_api_url(base, repo['owner_login'], repo['name'])}/hooks/{row['id']}"
    config = dict(json.loads(row["config"]))
    if config.get("secret"):
        config["secret"] = "********"  # noqa: S105 - GitHub's mask, not a secret
    else:
        config.pop("secret", None)
    return {
        "type": "Repository",
        "id": row["id"],
        "name": "web",
        "active": bool(row["active"]),
        "events": json.loads(row["events"]),
        "config": config,
        "updated_at": row["updated_at"],
        "created_at": row["created_at"],
        "url": url,
        "test_url": f"{url}/test",
        "ping_url": f"{url}/pings",
        "deliveries_url": f"{url}/deliveries",
        "last_response": {
            "code": row["last_code"],
            "status": row["last_status"] or "unused",
            "message": None,
        },
    }


def has_hooks(state: EmulatorState, repo_id: int) -> bool:
    """Whether the repository has an active hook at all."""
    row = state.store.one("SELECT 1 FROM hooks WHERE repo_id = ? AND active = 1", (repo_id,))
    return row is not None


def wanting(state: EmulatorState, repo_id: int, event: str) -> list[sqlite3.Row]:
    """The active hooks of the repository that want `event`."""
    return _wanting(state, repo_id, event)


def _wanting(state: EmulatorState, repo_id: int, event: str) -> list[sqlite3.Row]:
    rows = state.store.all(
        "SELECT * FROM hooks WHERE repo_id = ? AND active = 1 ORDER BY id", (repo_id,)
    )
    return [r for r in rows if {event, "*"} & set(json.loads(r["events"]))]


def emit(
    request: Request,
    repo: sqlite3.Row,
    event: str,
    action: str | None,
    build: Callable[[], Objects],
) -> None:
    """Send `event` (with `action`) to every active hook of `repo` that wants it."""
    hooks = _wanting(emulator(request), int(repo["id"]), event)
    if not hooks:
        return
    objects = build()
    guid = str(uuid.uuid4())
    origin = origin_of(request)
    for hook in hooks:
        emit_to(origin, repo, hook, event, action, objects=objects, guid=guid)


def emit_to(
    origin: Origin,
    repo: sqlite3.Row,
    hook: sqlite3.Row,
    event: str,
    action: str | None,
    *,
    objects: Objects,
    guid: str | None = None,
) -> None:
    """Queue one delivery of `event` to `hook`."""
    state, base, sender = origin.state, origin.base, origin.sender
    payload: Objects = {} if action is None else {"action": action}
    payload |= objects
    payload["repository"] = repo_view(state, base, repo).repo
    if sender is not None:
        payload["sender"] = user_json(base, sender)
    config = json.loads(hook["config"])
    outgoing = Outgoing(
        hook_id=int(hook["id"]),
        repo_id=int(repo["id"]),
        url=config["url"],
        secret=config.get("secret", ""),
        content_type=config.get("content_type", "form"),
        event=event,
        action=action,
        guid=guid or str(uuid.uuid4()),
        payload=json.dumps(payload, separators=(",", ":")).encode(),
    )
    state.hooks.put(outgoing, lambda sent, outcome: _record(state, sent, outcome))


def _record(state: EmulatorState, sent: Outgoing, outcome: Outcome) -> None:
    """Keep a delivery's outcome (the worker thread calls this)."""
    with state.store.tx() as conn:
        conn.execute(
            "INSERT INTO hook_deliveries (hook_id, guid, event, action, status_code, status, "
            "duration, delivered_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (sent.hook_id, sent.guid, sent.event, sent.action, outcome.status_code,
             outcome.status, round(outcome.duration, 3), now_iso()),
        )  # fmt: skip
        conn.execute(
            "UPDATE hooks SET last_code = ?, last_status = ? WHERE id = ?",
            (outcome.status_code or None, "active" if outcome.status == "OK" else "failed",
             sent.hook_id),
        )  # fmt: skip


def reactions(url: str) -> Objects:
    """An empty reaction rollup (the emulator has no reactions); webhooks always carry one."""
    counts = ("+1", "-1", "laugh", "hooray", "confused", "heart", "rocket", "eyes")
    return {"url": f"{url}/reactions", "total_count": 0} | dict.fromkeys(counts, 0)


def issue_object(request: Request, repo: sqlite3.Row, issue_id: int) -> Objects:
    """The issue (or PR's issue view) as its REST answer shows it now, with its reactions."""
    store = emulator(request).store
    row = store.one("SELECT * FROM issues WHERE id = ?", (issue_id,))
    assert row is not None
    issue = issues_json(store, base_url(request), repo, [row])[0]
    return {"reactions": reactions(issue["url"])} | issue


def emit_issue(
    request: Request, repo: sqlite3.Row, issue_id: int, action: str, **more: Any
) -> None:
    """An `issues` event for a plain issue (a PR's issue view sends none)."""

    def build() -> Objects:
        return {"issue": issue_object(request, repo, issue_id), **more}

    if has_hooks(emulator(request), int(repo["id"])) and not _is_pull(request, issue_id):
        emit(request, repo, "issues", action, build)


def emit_labels(
    request: Request, repo: sqlite3.Row, issue_id: int, before: set[str], after: set[str]
) -> None:
    """`labeled` / `unlabeled` for each label that came or went."""
    if before == after or not has_hooks(emulator(request), int(repo["id"])):
        return
    if _is_pull(request, issue_id):
        return
    store = emulator(request).store
    base = base_url(request)
    for action, names in (("labeled", after - before), ("unlabeled", before - after)):
        for name in sorted(names):
            row = store.one(
                "SELECT * FROM labels WHERE repo_id = ? AND name = ?", (repo["id"], name)
            )
            if row is None:
                continue
            label = label_json(base, repo["owner_login"], repo["name"], row)
            emit_issue(request, repo, issue_id, action, label=label)


def emit_comment(
    request: Request,
    repo: sqlite3.Row,
    issue_id: int,
    action: str,
    comment: Objects,
    **more: Any,
) -> None:
    """An `issue_comment` event (on an issue or a PR's conversation)."""

    def build() -> Objects:
        note = {"reactions": reactions(str(comment["url"])), "performed_via_github_app": None}
        issue = issue_object(request, repo, issue_id)
        return {"issue": issue, "comment": note | comment, **more}

    emit(request, repo, "issue_comment", action, build)


def label_names(request: Request, repo: sqlite3.Row, issue_id: int) -> set[str]:
    """The names of the labels on an issue now (nothing, unread, while no hook is active)."""
    if not has_hooks(emulator(request), int(repo["id"])):
        return set()
    rows = emulator(request).store.all(
        "SELECT labels.name FROM issue_labels JOIN labels ON labels.id = issue_labels.label_id "
        "WHERE issue_labels.issue_id = ?",
        (issue_id,),
    )
    return {str(r["name"]) for r in rows}


def _is_pull(request: Request, issue_id: int) -> bool:
    row = emulator(request).store.one("SELECT 1 FROM pulls WHERE issue_id = ?", (issue_id,))
    return row is not None


def emit_pull(request: Request, repo: sqlite3.Row, pull: Pull, action: str, **more: Any) -> None:
    """A `pull_request` event with the PR as `GET .../pulls/{n}` shows it now."""
    state = emulator(request)

    def build() -> Objects:
        view = repo_view(state, base_url(request), repo)
        return {"number": pull.number, "pull_request": pull_json(state, view, pull, full=True)}

    emit(request, repo, "pull_request", action, lambda: build() | more)


def emit_check_run(request: Request, repo: sqlite3.Row, run: Objects, action: str) -> None:
    """A `check_run` event with the run as the REST answer shows it."""
    emit(request, repo, "check_run", action, lambda: {"check_run": run})
