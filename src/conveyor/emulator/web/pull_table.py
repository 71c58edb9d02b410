"""The pull-request table on the index: each PR with its state (merged included) and checks."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from html import escape

from starlette.routing import BaseRoute

from conveyor.emulator.model.check_rows import check_runs_for, latest_by_name, statuses_for
from conveyor.emulator.model.pull_rows import Pull, closing_numbers, list_pulls
from conveyor.emulator.model.state import EmulatorState
from conveyor.emulator.model.store import Store
from conveyor.emulator.web.layout import item_href, state_badge

ROUTES: list[BaseRoute] = []


@dataclass(frozen=True)
class PullLine:
    """What the index shows of one PR: its number, title, state, branches and checks."""

    number: int
    title: str
    state: str
    head_ref: str
    base_ref: str
    head_sha: str
    checks: tuple[tuple[str, str], ...]


def pull_state(pull: Pull) -> str:
    """merged, closed, draft or open."""
    if pull.merged:
        return "merged"
    if pull.state == "closed":
        return "closed"
    return "draft" if pull.draft else "open"


def head_checks(store: Store, repo_id: int, sha: str) -> list[tuple[str, str]]:
    """The newest check run per name and commit status per context on a commit: name, result."""
    runs = latest_by_name(check_runs_for(store, repo_id, sha), "name")
    statuses = latest_by_name(statuses_for(store, repo_id, sha), "context")
    checks = [(name, run["conclusion"] or run["status"]) for name, run in sorted(runs.items())]
    return checks + [(name, row["state"]) for name, row in sorted(statuses.items())]


def pulls_for_page(store: Store, repo_id: int) -> list[PullLine]:
    """Every PR of the repository, newest first, with its head's newest check per name."""
    return [
        PullLine(
            pull.number,
            pull.title,
            pull_state(pull),
            pull.head_ref,
            pull.base_ref,
            pull.head_sha,
            tuple(head_checks(store, repo_id, pull.head_sha)),
        )
        for pull in list_pulls(store, repo_id, state="all")
    ]


def linked_pulls(store: Store, repo_id: int) -> dict[int, list[int]]:
    """Issue number -> the PRs whose bodies close it (GitHub's `Closes #N`), oldest first."""
    found: dict[int, list[int]] = {}
    for pull in reversed(list_pulls(store, repo_id, state="all")):
        for number in closing_numbers(pull.body):
            found.setdefault(number, []).append(pull.number)
    return found


def checks_html(checks: tuple[tuple[str, str], ...] | list[tuple[str, str]]) -> str:
    """`name: result` per check, coloured by result."""
    return ", ".join(
        f'<span class="check-{escape(result)}">{escape(name)}: {escape(result)}</span>'
        for name, result in checks
    )


def page_section(state: EmulatorState, _base: str, repo: sqlite3.Row) -> str:
    """The repository's PRs as a table of escaped HTML."""
    lines = pulls_for_page(state.store, int(repo["id"]))
    if not lines:
        return "<h3>Pull requests</h3><p>None.</p>"
    slug = f"{repo['owner_login']}/{repo['name']}"
    rows = [
        f'<tr id="pull-{line.number}"><td>#{line.number}</td>'
        f'<td><a href="{item_href(slug, line.number, pull=True)}">{escape(line.title)}</a>'
        f'<div class="meta"><code>{escape(line.head_ref)}</code> → '
        f"<code>{escape(line.base_ref)}</code> at <code>{escape(line.head_sha[:7])}</code>"
        f"</div></td><td>{state_badge(line.state)}</td><td>{checks_html(line.checks)}</td></tr>"
        for line in lines
    ]
    head = "<tr><th>#</th><th>Pull request</th><th>State</th><th>Checks</th></tr>"
    return f"<h3>Pull requests</h3><table>{head}{''.join(rows)}</table>"
