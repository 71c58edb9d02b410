"""An issue's own page: title, state, labels, sub-issues, linked PRs, body and comments.

Bodies and comments are rendered markdown with hidden comments hidden (the
pipeline's markers and state blob); each comment carries the anchor its
`html_url` names (`#issuecomment-ID`). A PR's number redirects to its PR page.
"""

from __future__ import annotations

import sqlite3
from html import escape

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from conveyor.emulator.model.http import emulator
from conveyor.emulator.model.records import repo_row
from conveyor.emulator.model.store import Store
from conveyor.emulator.web.layout import (
    chips,
    item_href,
    labels_of,
    not_found,
    page,
    state_badge,
    when,
)
from conveyor.emulator.web.markdown import render_markdown
from conveyor.emulator.web.pull_table import linked_pulls
from conveyor.emulator.web.timeline import issue_timeline
from conveyor.emulator.web.transcript import sessions_html


def find_item(store: Store, owner: str, name: str, number: int) -> sqlite3.Row | None:
    """The issue (or PR) row with its author's login, or None."""
    repo = repo_row(store, owner, name)
    if repo is None:
        return None
    return store.one(
        "SELECT issues.*, users.login FROM issues JOIN users ON users.id = issues.author_id "
        "WHERE repo_id = ? AND number = ?",
        (repo["id"], number),
    )


def box(who: str, at: str | None, markdown: str, *, anchor: str = "", what: str = "") -> str:
    """One body or comment: who wrote it and when, then the rendered text."""
    ident = f' id="{escape(anchor)}"' if anchor else ""
    head = f"<b>{escape(who)}</b> {escape(what)} <span class='meta'>{when(at)}</span>"
    text = render_markdown(markdown) if markdown.strip() else '<p class="meta">No description.</p>'
    return (
        f'<article class="box"{ident}><header>{head}</header><div class="md">{text}</div></article>'
    )


def conversation_html(store: Store, item: sqlite3.Row) -> str:
    """The body, then every comment oldest first."""
    parts = [box(item["login"], item["created_at"], item["body"] or "", what="opened")]
    for row in store.all(
        "SELECT comments.*, users.login FROM comments JOIN users ON users.id = comments.author_id "
        "WHERE comments.issue_id = ? ORDER BY comments.id",
        (item["id"],),
    ):
        anchor = f"issuecomment-{row['id']}"
        parts.append(box(row["login"], row["created_at"], row["body"], anchor=anchor))
    return "".join(parts)


def _related(store: Store, item: sqlite3.Row, slug: str) -> str:
    """Parent, sub-issues and the PRs that close this issue."""
    lines = []
    parent = store.one(
        "SELECT issues.number, issues.title FROM sub_issues JOIN issues "
        "ON issues.id = sub_issues.parent_id WHERE sub_issues.child_id = ?",
        (item["id"],),
    )
    if parent is not None:
        href = item_href(slug, int(parent["number"]), pull=False)
        lines.append(f'Part of <a href="{href}">#{parent["number"]} {escape(parent["title"])}</a>')
    subs = store.all(
        "SELECT issues.number, issues.title, issues.state, issues.state_reason FROM sub_issues "
        "JOIN issues "
        "ON issues.id = sub_issues.child_id WHERE sub_issues.parent_id = ? "
        "ORDER BY sub_issues.position",
        (item["id"],),
    )
    for sub in subs:
        href = item_href(slug, int(sub["number"]), pull=False)
        lines.append(
            f'Sub-issue <a href="{href}">#{sub["number"]} {escape(sub["title"])}</a> '
            f"{state_badge(sub['state'], sub['state_reason'])}"
        )
    for pr in linked_pulls(store, int(item["repo_id"])).get(int(item["number"]), []):
        lines.append(f'Pull request <a href="{item_href(slug, pr, pull=True)}">#{pr}</a>')
    return "".join(f"<div>{line}</div>" for line in lines)


def heading(item: sqlite3.Row, state: str, labels: str, slug: str) -> str:
    """The title line, the state badge, who opened it, the labels."""
    reason = None if item["is_pull"] else item["state_reason"]
    return (
        f'<h1>{escape(item["title"])} <span class="num">#{item["number"]}</span></h1>'
        f"<p>{state_badge(state, reason)} <span class='meta'>{escape(slug)} · opened by "
        f"{escape(item['login'])} {when(item['created_at'])}</span></p>"
        f'<p class="labels">{labels or "<span class=meta>No labels.</span>"}</p>'
    )


async def issue_page(request: Request) -> Response:
    """`/{owner}/{repo}/issues/{number}`."""
    owner, name = request.path_params["owner"], request.path_params["repo"]
    number = int(request.path_params["number"])
    store = emulator(request).store
    item = find_item(store, owner, name, number)
    slug = f"{owner}/{name}"
    if item is None:
        return not_found(f"{slug} has no issue #{number}.")
    if item["is_pull"]:
        return RedirectResponse(item_href(slug, number, pull=True), status_code=302)
    state = item["state"]
    labels = chips(labels_of(store, [item["id"]])[item["id"]])
    body = (
        heading(item, state, labels, slug)
        + _related(store, item, slug)
        + conversation_html(store, item)
        + issue_timeline(emulator(request).pipeline, slug, number)
        + sessions_html(emulator(request), slug, number)
    )
    return page(f"#{number} {item['title']}", body, crumbs=[(f"/#{slug}", slug)])


ROUTES = [Route("/{owner}/{repo}/issues/{number:int}", issue_page, methods=["GET"])]
