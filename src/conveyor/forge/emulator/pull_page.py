"""The pull-request section of the page at `/`: each PR with its state and its head's checks."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from html import escape

from starlette.routing import BaseRoute

from conveyor.forge.emulator.check_rows import check_runs_for, latest_by_name, statuses_for
from conveyor.forge.emulator.pull_rows import Pull, list_pulls
from conveyor.forge.emulator.state import EmulatorState
from conveyor.forge.emulator.store import Store

ROUTES: list[BaseRoute] = []


@dataclass(frozen=True)
class PullLine:
    """What the page shows of one PR: its number, title, state, branches and checks."""

    number: int
    title: str
    state: str
    head_ref: str
    base_ref: str
    head_sha: str
    checks: tuple[tuple[str, str], ...]


def _state(pull: Pull) -> str:
    if pull.merged:
        return "merged"
    if pull.state == "closed":
        return "closed"
    return "draft" if pull.draft else "open"


def pulls_for_page(store: Store, repo_id: int) -> list[PullLine]:
    """Every PR of the repository, newest first, with its head's newest check per name."""
    lines = []
    for pull in list_pulls(store, repo_id, state="all"):
        runs = latest_by_name(check_runs_for(store, repo_id, pull.head_sha), "name")
        statuses = latest_by_name(statuses_for(store, repo_id, pull.head_sha), "context")
        checks = [(name, run["conclusion"] or run["status"]) for name, run in sorted(runs.items())]
        checks += [(name, row["state"]) for name, row in sorted(statuses.items())]
        lines.append(
            PullLine(
                pull.number,
                pull.title,
                _state(pull),
                pull.head_ref,
                pull.base_ref,
                pull.head_sha,
                tuple(checks),
            )
        )
    return lines


def page_section(state: EmulatorState, _base: str, repo: sqlite3.Row) -> str:
    """The repository's PRs as escaped HTML."""
    lines = pulls_for_page(state.store, int(repo["id"]))
    if not lines:
        return "<h3>Pull requests</h3><p>None.</p>"
    items = []
    for line in lines:
        checks = ", ".join(f"{escape(name)}: {escape(result)}" for name, result in line.checks)
        items.append(
            f"<li>#{line.number} {escape(line.title)} <em>[{escape(line.state)}]</em> "
            f"<code>{escape(line.head_ref)}</code> → <code>{escape(line.base_ref)}</code> "
            f"at <code>{escape(line.head_sha[:7])}</code>"
            + (f"<br>checks: {checks}" if checks else "")
            + "</li>"
        )
    return "<h3>Pull requests</h3><ul>" + "".join(items) + "</ul>"
