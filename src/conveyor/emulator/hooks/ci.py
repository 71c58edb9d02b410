"""The CI worker: one thread per server that runs queued `ci` check runs one at a time.

It also polls the push log (`hooks.push.sync_pushes`), so pushes move PR heads and
queue CI even when no request arrives. Stopping the server kills the running command.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

from starlette.routing import BaseRoute

from conveyor.emulator.hooks.ci_box import ci_box
from conveyor.emulator.hooks.ci_run import run_ci
from conveyor.emulator.hooks.events import Objects
from conveyor.emulator.hooks.push import deliver, reconcile_and_deliver, sync_pushes
from conveyor.emulator.model.check_rows import check_run, update_check_run
from conveyor.emulator.model.ci_network import repo_ci_network
from conveyor.emulator.model.state import EmulatorState
from conveyor.emulator.repos.check_shape import check_run_json
from conveyor.emulator.repos.pull_shape import RepoView
from conveyor.emulator.repos.pushes import install_hooks, repo_git

log = logging.getLogger(__name__)
POLL_S = 0.1
_WORKERS: dict[int, CiWorker] = {}


class CiWorker:
    """The thread that runs CI commands and picks up pushes for one emulator."""

    def __init__(self, state: EmulatorState) -> None:
        self.state = state
        self.stop = threading.Event()
        self.wake = threading.Event()
        self.thread = threading.Thread(target=self._loop, name="conveyor-ci", daemon=True)
        self.box = ci_box()
        home = state.pipeline.home if state.pipeline is not None else None
        found = [state.data_dir, home, os.environ.get("HOME")]
        self.hidden = tuple(Path(p) for p in found if p and Path(p) != Path("/"))

    def _loop(self) -> None:
        store = self.state.store
        try:
            while not self.stop.is_set():
                try:
                    sync_pushes(self.state)
                    ran = self._run_next()
                except Exception:  # one bad step must not stop the worker
                    log.exception("CI worker step failed")
                    ran = False
                if not ran:
                    self.wake.wait(POLL_S)
                    self.wake.clear()
        finally:
            store.close()

    def _run_next(self) -> bool:
        """Run the oldest queued CI check run; False when there was none."""
        store = self.state.store
        with store.tx() as conn:
            job = conn.execute(
                "SELECT c.id, c.head_sha, c.repo_id, r.ci_command FROM check_runs c "
                "JOIN repos r ON r.id = c.repo_id "
                "WHERE c.is_ci = 1 AND c.status = 'queued' ORDER BY c.id LIMIT 1"
            ).fetchone()
            if job is None:
                return False
            update_check_run(conn, job["id"], status="in_progress", summary="Running.")
        bare = repo_git(store, self.state.data_dir, int(job["repo_id"]))
        command = str(job["ci_command"] or "true")
        network = repo_ci_network(store, int(job["repo_id"]), self.state.ci_network)
        outcome = run_ci(
            bare,
            str(job["head_sha"]),
            command,
            self.stop,
            box=self.box,
            hidden=self.hidden,
            network=network,
        )
        title = "CI passed" if outcome.conclusion == "success" else f"CI {outcome.conclusion}"
        with store.tx() as conn:
            update_check_run(
                conn,
                job["id"],
                status="completed",
                conclusion=outcome.conclusion,
                title=title,
                summary=outcome.log_tail,
            )
        deliver_completed(self.state, int(job["repo_id"]), int(job["id"]))
        return True


def deliver_completed(state: EmulatorState, repo_id: int, run_id: int) -> None:
    """Send `check_run` `completed` for a CI run to the hooks that want it.

    The sender is the repository's owner (the emulator's CI has no account of its own).
    """
    repo = state.store.one("SELECT owner_id FROM repos WHERE id = ?", (repo_id,))
    run = check_run(state.store, repo_id, run_id)
    if repo is None or run is None:
        return

    def build(view: RepoView) -> Objects:
        return {"check_run": check_run_json(view, run)}

    owner = int(repo["owner_id"])
    deliver(state, repo_id, "check_run", "completed", sender_id=owner, build=build)


def wake(state: EmulatorState) -> None:
    """Tell the worker a run was queued (it also polls)."""
    worker = _WORKERS.get(id(state))
    if worker is not None:
        worker.wake.set()


def on_startup(state: EmulatorState) -> None:
    """Re-queue runs a stopped server left in progress, reconcile pushes, start the worker."""
    install_hooks(state)
    with state.store.tx() as conn:
        conn.execute(
            "UPDATE check_runs SET status = 'queued', started_at = NULL "
            "WHERE is_ci = 1 AND status = 'in_progress'"
        )
    sync_pushes(state)
    reconcile_and_deliver(state)
    worker = CiWorker(state)
    _WORKERS[id(state)] = worker
    worker.thread.start()


def on_shutdown(state: EmulatorState) -> None:
    """Stop the worker, killing the command it runs."""
    worker = _WORKERS.pop(id(state), None)
    if worker is not None:
        worker.stop.set()
        worker.wake.set()
        worker.thread.join(timeout=15)


ROUTES: list[BaseRoute] = []
