"""The forge pages' frame: the HTML shell, its style, label chips and state badges.

Every string from the store goes through `html.escape` (or the safe markdown
renderer) before it reaches a page; these helpers take raw values and escape
them themselves. `page` then passes the whole page through `core.printable`:
a control or bidi character anyone wrote (a right-to-left override in a title
would mirror the heading) shows as its escape, in logical order.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from collections.abc import Iterable
from html import escape
from urllib.parse import quote

from starlette.responses import HTMLResponse

from conveyor.core.printable import printable
from conveyor.emulator.model.store import Store

STYLE = """
body{font-family:system-ui,sans-serif;max-width:64em;margin:1.5em auto;padding:0 1em;color:#1f2328}
a{color:#0969da;text-decoration:none}a:hover{text-decoration:underline}
nav{font-size:.9em;margin-bottom:1em}nav a{margin-right:1em}
h1{font-size:1.5em;margin:.2em 0}h1 .num{color:#59636e;font-weight:normal}
table{border-collapse:collapse;width:100%;margin:.5em 0 1.5em}
th,td{text-align:left;padding:.35em .5em;border-bottom:1px solid #d1d9e0;vertical-align:top}
th{font-size:.85em;color:#59636e}
.label{display:inline-block;border-radius:1em;padding:0 .6em;margin:0 .3em .2em 0;
font-size:.8em;font-weight:600;line-height:1.6em;border:1px solid rgba(0,0,0,.15)}
.state{display:inline-block;border-radius:1em;padding:.1em .7em;color:#fff;font-size:.85em;
font-weight:600}
.state-open{background:#1f883d}.state-closed{background:#6e7781}
.state-merged{background:#8250df}.state-draft{background:#59636e}
.state-completed{background:#8250df}.state-not_planned{background:#6e7781}
.meta{color:#59636e;font-size:.85em}
.box{border:1px solid #d1d9e0;border-radius:6px;margin:1em 0}
.box>header{background:#f6f8fa;border-bottom:1px solid #d1d9e0;padding:.4em .8em;font-size:.9em}
.box>.md{padding:.2em .8em}
.md pre{background:#f6f8fa;padding:.6em;overflow:auto}.md code{background:#f6f8fa}
.md table{width:auto}
pre.diff{font-size:.8em;overflow:auto;background:#f6f8fa;padding:.6em;margin:0}
.diff .add{color:#116329;background:#dafbe1}.diff .del{color:#82071e;background:#ffebe9}
.diff .hunk{color:#8250df}.diff .file{font-weight:700}
.check-success{color:#1a7f37}.check-failure,.check-error,.check-timed_out{color:#d1242f}
.check-pending,.check-queued,.check-in_progress{color:#9a6700}
"""


def page(
    title: str,
    body: str,
    *,
    crumbs: Iterable[tuple[str, str]] = (),
    refresh_seconds: int | None = None,
) -> HTMLResponse:
    """A whole page: `title` (raw) in the head, `body` (already safe HTML) in the body;
    with `refresh_seconds`, the browser loads it again that often."""
    links = [("/", "Forge"), *crumbs, ("/pipeline", "Pipeline")]
    nav = "".join(f'<a href="{escape(href)}">{escape(text)}</a>' for href, text in links)
    refresh = (
        f'<meta http-equiv="refresh" content="{int(refresh_seconds)}">' if refresh_seconds else ""
    )
    html = (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8">{refresh}'
        f"<title>{escape(title)} · Conveyor forge</title><style>{STYLE}</style></head>"
        f"<body><nav>{nav}</nav>{body}</body></html>"
    )
    return HTMLResponse(printable(html))


def not_found(what: str) -> HTMLResponse:
    """A page saying what was not found (status 404)."""
    answer = page("Not found", f"<h1>Not found</h1><p>{escape(what)}</p>")
    answer.status_code = 404
    return answer


DARK_TEXT, LIGHT_TEXT = "1f2328", "ffffff"


def luminance(colour: str) -> float:
    """WCAG's relative luminance of an `RRGGBB` colour."""
    channels = [int(colour[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    red, green, blue = (
        c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels
    )
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast(one: str, other: str) -> float:
    """WCAG's contrast ratio of two `RRGGBB` colours (1 to 21)."""
    low, high = sorted((luminance(one), luminance(other)))
    return (high + 0.05) / (low + 0.05)


def _text_colour(background: str) -> str:
    """Dark or white text, whichever contrasts more with the background colour."""
    dark, light = contrast(background, DARK_TEXT), contrast(background, LIGHT_TEXT)
    return f"#{DARK_TEXT if dark >= light else LIGHT_TEXT}"


def label_chip(name: str, color: str, description: str | None = None) -> str:
    """One label as a coloured chip whose text stays readable on its colour."""
    hex_digits = "0123456789abcdefABCDEF"
    background = color if len(color) == 6 and all(c in hex_digits for c in color) else "ededed"
    tip = f' title="{escape(description)}"' if description else ""
    style = f"background:#{background};color:{_text_colour(background)}"
    return f'<span class="label" style="{style}"{tip}>{escape(name)}</span>'


def state_badge(state: str, reason: str | None = None) -> str:
    """`open`, `closed`, `merged`, `draft`, … as a coloured badge (a closed issue's colour
    says whether it was completed or not planned)."""
    kind = reason if state == "closed" and reason in ("completed", "not_planned") else state
    shown = "closed, not planned" if kind == "not_planned" else state
    return f'<span class="state state-{escape(kind)}">{escape(shown)}</span>'


def labels_of(store: Store, issue_ids: list[int]) -> dict[int, list[sqlite3.Row]]:
    """Each issue's labels, by name."""
    found: dict[int, list[sqlite3.Row]] = defaultdict(list)
    if issue_ids:
        marks = ", ".join("?" for _ in issue_ids)
        for row in store.all(
            "SELECT issue_labels.issue_id, labels.name, labels.color, labels.description "
            "FROM issue_labels JOIN labels ON labels.id = issue_labels.label_id "
            f"WHERE issue_id IN ({marks}) ORDER BY labels.name",
            issue_ids,
        ):
            found[row["issue_id"]].append(row)
    return found


def chips(labels: Iterable[sqlite3.Row]) -> str:
    """Label chips for the rows of `labels_of`."""
    return "".join(label_chip(r["name"], r["color"], r["description"]) for r in labels)


def item_href(slug: str, number: int, *, pull: bool) -> str:
    """An issue's or PR's own page."""
    return f"/{quote(slug, safe='/')}/{'pull' if pull else 'issues'}/{number}"


def when(iso: str | None) -> str:
    """An ISO timestamp as `2026-01-02 03:04 UTC` (escaped)."""
    if not iso:
        return ""
    return escape(iso.replace("T", " ")[:16] + " UTC")
