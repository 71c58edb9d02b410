"""Deliveries no request makes: a PR's head moved by a push, and the forge's CI finishing.

Pushes reach the server through its git hook and CI runs in the worker thread,
so these have no request to take a base URL from: each hook's payload links use
the base URL the hook was created through (`hooks.base`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence

from conveyor.emulator.hooks.events import Objects, Origin, emit_to, wanting
from conveyor.emulator.model.pull_rows import get_pull
from conveyor.emulator.model.state import EmulatorState
from conveyor.emulator.repos.pull_shape import RepoView, pull_json, repo_view
from conveyor.emulator.repos.pushes import Moved, read_push_log, reconcile_heads


def deliver(
    state: EmulatorState,
    repo_id: int,
    event: str,
    action: str,
    *,
    sender_id: int,
    build: Callable[[RepoView], Objects],
) -> None:
    """Send `event` (with `action`) by user `sender_id` to each hook of the repository that
    wants it; `build` makes the event's objects from the repository's view for that hook."""
    hooks = wanting(state, repo_id, event)
    if not hooks:
        return
    repo = _repo(state, repo_id)
    if repo is None:
        return
    sender = state.store.one("SELECT * FROM users WHERE id = ?", (sender_id,))
    for hook in hooks:
        base = str(hook["base"])
        objects = build(repo_view(state, base, repo))
        emit_to(Origin(state, base, sender), repo, hook, event, action, objects=objects)


def _repo(state: EmulatorState, repo_id: int) -> sqlite3.Row | None:
    return state.store.one(
        "SELECT repos.*, users.login AS owner_login FROM repos "
        "JOIN users ON users.id = repos.owner_id WHERE repos.id = ?",
        (repo_id,),
    )


def deliver_synchronize(state: EmulatorState, moved: Moved, sender_id: int | None) -> None:
    """`pull_request` `synchronize` for a moved head (`sender_id` None: the PR's author)."""
    pull = get_pull(state.store, moved.repo_id, moved.number)
    if pull is None:
        return

    def build(view: RepoView) -> Objects:
        return {
            "number": pull.number,
            "before": moved.before,
            "after": moved.after,
            "pull_request": pull_json(state, view, pull, full=True),
        }

    who = pull.author_id if sender_id is None else sender_id
    deliver(state, moved.repo_id, "pull_request", "synchronize", sender_id=who, build=build)


def deliver_moves(state: EmulatorState, moves: Sequence[Moved], sender_id: int | None) -> None:
    """Send `synchronize` for each moved head; `sender_id` None: the PR's author.

    The embedded forge's git transport is local paths, so it cannot know who pushed.
    """
    for moved in moves:
        deliver_synchronize(state, moved, sender_id)


def sync_pushes(state: EmulatorState) -> None:
    """Apply the pushes logged since the last call and deliver the heads they moved."""
    deliver_moves(state, read_push_log(state), None)


def reconcile_and_deliver(state: EmulatorState) -> None:
    """Bring every open PR's head in line with its branch and deliver the heads it moved."""
    deliver_moves(state, reconcile_heads(state), None)
