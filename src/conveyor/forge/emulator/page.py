"""The plain HTML page at `/`: repositories, their issues with labels and comments, and PRs.

Every user-supplied string goes through `html.escape`. Other route modules add a
section per repository (PRs and their checks) through `page_section(state, base, repo)`.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from html import escape
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from conveyor.forge.emulator.http import base_url, emulator
from conveyor.forge.emulator.store import Store

STYLE = (
    "body{font-family:sans-serif;max-width:60em;margin:2em auto;color:#222}"
    ".label{border-radius:1em;padding:0 .5em;margin-left:.3em;font-size:.8em}"
    ".comment{border-left:3px solid #ccc;margin:.5em 0 .5em 1em;padding-left:.5em}"
    ".comment pre,.body pre{white-space:pre-wrap;margin:.2em 0}"
    ".meta{color:#666;font-size:.85em}"
)


def _labels(store: Store, issue_ids: list[int]) -> dict[int, list[sqlite3.Row]]:
    """Each issue's labels."""
    found: dict[int, list[sqlite3.Row]] = defaultdict(list)
    if issue_ids:
        marks = ", ".join("?" for _ in issue_ids)
        for row in store.all(
            "SELECT issue_labels.issue_id, labels.name, labels.color FROM issue_labels "
            f"JOIN labels ON labels.id = issue_labels.label_id WHERE issue_id IN ({marks}) "
            "ORDER BY labels.name",
            issue_ids,
        ):
            found[row["issue_id"]].append(row)
    return found


def _comments(store: Store, repo_id: int) -> dict[int, list[sqlite3.Row]]:
    """Each issue's comments with their authors, oldest first."""
    found: dict[int, list[sqlite3.Row]] = defaultdict(list)
    for row in store.all(
        "SELECT comments.*, users.login FROM comments JOIN users ON users.id = comments.author_id "
        "WHERE comments.repo_id = ? ORDER BY comments.id",
        (repo_id,),
    ):
        found[row["issue_id"]].append(row)
    return found


def _label_html(label: sqlite3.Row) -> str:
    """One label as a coloured chip."""
    color = (
        label["color"] if all(c in "0123456789abcdefABCDEF" for c in label["color"]) else "ededed"
    )
    return f'<span class="label" style="background:#{color}">{escape(label["name"])}</span>'


def _issue_html(
    slug: str, issue: sqlite3.Row, labels: list[sqlite3.Row], comments: list[sqlite3.Row]
) -> str:
    """One issue (or the conversation of a PR) with its labels and comments."""
    kind = "PR" if issue["is_pull"] else "issue"
    anchor = escape(f"{slug}#{issue['number']}")
    parts = [
        f'<li id="{anchor}"><b>#{issue["number"]}</b> {escape(issue["title"])}',
        f' <span class="meta">({kind}, {escape(issue["state"])}',
        f", {escape(issue['state_reason'])}" if issue["state_reason"] else "",
        f", by {escape(issue['login'])}, updated {escape(issue['updated_at'])})</span>",
        *(_label_html(label) for label in labels),
        f'<div class="body"><pre>{escape(issue["body"] or "")}</pre></div>',
    ]
    for comment in comments:
        parts.append(
            f'<div class="comment"><span class="meta">{escape(comment["login"])} at '
            f"{escape(comment['created_at'])}</span><pre>{escape(comment['body'])}</pre></div>"
        )
    parts.append("</li>")
    return "".join(parts)


def _repo_html(request: Request, repo: sqlite3.Row) -> str:
    """One repository: its issues, then the sections other modules add (PRs, checks)."""
    state = emulator(request)
    store = state.store
    issues = store.all(
        "SELECT issues.*, users.login FROM issues JOIN users ON users.id = issues.author_id "
        "WHERE repo_id = ? ORDER BY number",
        (repo["id"],),
    )
    labels = _labels(store, [row["id"] for row in issues])
    comments = _comments(store, repo["id"])
    slug = f"{repo['owner_login']}/{repo['name']}"
    parts = [
        f"<section><h2>{escape(slug)}</h2>",
        f'<p class="meta">default branch {escape(repo["default_branch"])}</p>',
        "<h3>Issues and pull requests</h3><ul>",
        *(_issue_html(slug, row, labels[row["id"]], comments[row["id"]]) for row in issues),
        "</ul>",
    ]
    for module in request.app.state.modules:
        section = getattr(module, "page_section", None)
        if section is not None:
            parts.append(section(state, base_url(request), repo))
    parts.append("</section>")
    return "".join(parts)


async def index(request: Request) -> Response:
    """The whole page."""
    store = emulator(request).store
    repos = store.all(
        "SELECT repos.*, users.login AS owner_login FROM repos "
        "JOIN users ON users.id = repos.owner_id ORDER BY users.login, repos.name"
    )
    body = "".join(_repo_html(request, repo) for repo in repos) or "<p>No repositories yet.</p>"
    page = (
        '<!doctype html><html><head><meta charset="utf-8"><title>Conveyor forge</title>'
        f"<style>{STYLE}</style></head><body><h1>Conveyor forge</h1>{body}</body></html>"
    )
    return HTMLResponse(page)


async def to_anchor(request: Request) -> Response:
    """An issue's or PR's `html_url` leads to its place on the page."""
    params = request.path_params
    anchor = quote(f"{params['owner']}/{params['repo']}#{params['number']}", safe="/")
    return RedirectResponse(f"/#{anchor}", status_code=302)


ROUTES = [
    Route("/", index, methods=["GET"]),
    Route("/{owner}/{repo}/issues/{number:int}", to_anchor, methods=["GET"]),
    Route("/{owner}/{repo}/pull/{number:int}", to_anchor, methods=["GET"]),
]
