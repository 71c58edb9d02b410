"""The forge's index at `/`: each repository's issues and pull requests, one line each.

Every user-supplied string is escaped. Other route modules add a section per
repository (the PR table, for one) through `page_section(state, base, repo)`.
An issue's and a PR's own pages are `web.issue` and `web.pull`.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from html import escape

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from conveyor.emulator.model.http import base_url, emulator
from conveyor.emulator.web.layout import (
    chips,
    item_href,
    labels_of,
    page,
    state_badge,
    when,
)
from conveyor.emulator.web.pull_table import linked_pulls


def _comment_counts(request: Request, repo_id: int) -> Counter[int]:
    rows = emulator(request).store.all(
        "SELECT issue_id, COUNT(*) AS n FROM comments WHERE repo_id = ? GROUP BY issue_id",
        (repo_id,),
    )
    return Counter({int(row["issue_id"]): int(row["n"]) for row in rows})


def _issue_rows(request: Request, repo: sqlite3.Row, slug: str) -> str:
    store = emulator(request).store
    issues = store.all(
        "SELECT issues.*, users.login FROM issues JOIN users ON users.id = issues.author_id "
        "WHERE repo_id = ? AND is_pull = 0 ORDER BY number",
        (repo["id"],),
    )
    if not issues:
        return "<p>No issues.</p>"
    labels = labels_of(store, [row["id"] for row in issues])
    comments = _comment_counts(request, repo["id"])
    pulls = linked_pulls(store, int(repo["id"]))
    lines = []
    for row in issues:
        number = int(row["number"])
        linked = " ".join(
            f'<a href="{item_href(slug, pr, pull=True)}">#{pr}</a>' for pr in pulls.get(number, ())
        )
        lines.append(
            f'<tr id="issue-{number}"><td>#{number}</td>'
            f'<td><a href="{item_href(slug, number, pull=False)}">{escape(row["title"])}</a>'
            f'<div class="meta">by {escape(row["login"])}, updated {when(row["updated_at"])}'
            f", {comments[int(row['id'])]} comments</div></td>"
            f"<td>{state_badge(row['state'], row['state_reason'])}</td>"
            f"<td>{chips(labels[row['id']])}</td>"
            f"<td>{linked or '-'}</td></tr>"
        )
    head = "<tr><th>#</th><th>Issue</th><th>State</th><th>Labels</th><th>PR</th></tr>"
    return f"<table>{head}{''.join(lines)}</table>"


def _repo_html(request: Request, repo: sqlite3.Row) -> str:
    """One repository: its issues, then the sections other modules add (the PRs, …)."""
    state = emulator(request)
    slug = f"{repo['owner_login']}/{repo['name']}"
    parts = [
        f'<section id="{escape(slug)}"><h2>{escape(slug)}</h2>',
        f'<p class="meta">default branch {escape(repo["default_branch"])}</p>',
        "<h3>Issues</h3>",
        _issue_rows(request, repo, slug),
    ]
    for module in request.app.state.modules:
        section = getattr(module, "page_section", None)
        if section is not None:
            parts.append(section(state, base_url(request), repo))
    parts.append("</section>")
    return "".join(parts)


async def index(request: Request) -> Response:
    """Every repository, its issues and its pull requests."""
    store = emulator(request).store
    repos = store.all(
        "SELECT repos.*, users.login AS owner_login FROM repos "
        "JOIN users ON users.id = repos.owner_id ORDER BY users.login, repos.name"
    )
    body = "".join(_repo_html(request, repo) for repo in repos) or "<p>No repositories yet.</p>"
    return page("Repositories", f"<h1>Conveyor forge</h1>{body}")


ROUTES = [Route("/", index, methods=["GET"])]
