"""An issue's agent sessions on its page, and one page per session's transcript.

What a session said and did is read by the same reader `conveyor transcript` uses (the
job folders' `job.json` and the CLI's own stream, `conveyor.job.transcripts`), handed to
the app as `EmulatorState.transcripts` since the job layer sits above the forge, and drawn
by the terminal's own lines (`core.transcript_text`): `●` a message, `⏺ Tool(…)` a call,
`⎿` its result, `!` an error, then the totals. Every line is escaped here and the whole
page again by `web.layout.page`: the stream holds what the model and the tools wrote.
"""

from __future__ import annotations

import sqlite3
from html import escape
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from conveyor.core.transcript import Found, SessionTranscript, money, totals_line
from conveyor.core.transcript_text import entry_lines, heading
from conveyor.emulator.model.http import emulator
from conveyor.emulator.model.records import repo_row
from conveyor.emulator.model.state import EmulatorState
from conveyor.emulator.web.layout import item_href, not_found, page, when

STYLE = (
    "<style>pre.transcript{background:#0d1117;color:#e6edf3;padding:.8em;overflow:auto;"
    "font-size:.85em;line-height:1.35;border-radius:6px;white-space:pre-wrap;"
    "overflow-wrap:anywhere}"
    ".t-call{color:#79c0ff}.t-result{color:#8b949e}.t-failed{color:#ff7b72}"
    ".t-error{color:#ff7b72;font-weight:600}.t-thinking{color:#a5a5a5;font-style:italic}"
    ".t-turn{color:#d29922}.t-totals{color:#3fb950}</style>"
)


def session_href(slug: str, number: int, session: SessionTranscript) -> str:
    """The page of one session of issue `number`."""
    job, key = quote(session.job, safe=""), quote(session.key, safe="")
    return f"{item_href(slug, number, pull=False)}/sessions/{job}/{key}"


def _issue(state: EmulatorState, owner: str, name: str, number: int) -> sqlite3.Row | None:
    """The issue's row, or a PR's (a review of a person's PR runs under the PR's number;
    Conveyor's own PR has none: its issue's page lists them)."""
    repo = repo_row(state.store, owner, name)
    if repo is None:
        return None
    return state.store.one(
        "SELECT title FROM issues WHERE repo_id = ? AND number = ?", (repo["id"], number)
    )


def _read(state: EmulatorState, slug: str, number: int) -> Found | None:
    return None if state.transcripts is None else state.transcripts(slug, number)


def _work(turns: int, calls: int) -> str:
    return f"{turns} turn{'s' if turns != 1 else ''}, {calls} call{'s' if calls != 1 else ''}"


def _row(slug: str, number: int, session: SessionTranscript) -> str:
    totals = session.totals
    cells = [
        escape(session.stage),
        f'<a href="{escape(session_href(slug, number, session))}">{escape(session.key)}</a>',
        escape(f"{session.backend} {session.model}"),
        escape(session.status),
        _work(totals.turns, totals.tool_calls),
        escape(money(totals.cost_usd)),
        when(session.ended_at),
    ]
    return "<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>"


def sessions_html(state: EmulatorState, slug: str, number: int) -> str:
    """The issue page's table of agent sessions, each linking to its transcript ("" when the
    forge reads no pipeline's job folders or the issue had no session)."""
    found = _read(state, slug, number)
    if found is None or not (found.sessions or found.unreadable):
        return ""
    head = (
        "<tr><th>Stage</th><th>Session</th><th>Agent</th><th>Status</th><th>Work</th>"
        "<th>Cost</th><th>Ended</th></tr>"
    )
    rows = "".join(_row(slug, number, s) for s in found.sessions)
    skipped = "".join(
        f"<p class='meta'>skipped (unreadable): {escape(line)}</p>" for line in found.unreadable
    )
    return f'<h3 id="sessions">Agent sessions</h3><table>{head}{rows}</table>{skipped}'


def _lines(kind: str, lines: list[str]) -> str:
    return f'<span class="t-{kind}">' + "".join(escape(line) + "\n" for line in lines) + "</span>"


def transcript_html(session: SessionTranscript) -> str:
    """The session drawn as the terminal draws it, one coloured span per entry."""
    parts = []
    for entry in session.entries:
        kind = "failed" if entry.kind == "result" and entry.failed else entry.kind
        lines = entry_lines(entry)
        if lines:
            parts.append(_lines(kind, lines))
    parts.append(_lines("totals", ["── " + totals_line(session.totals)]))
    if session.totals.error:
        parts.append(_lines("error", [f"── ended on: {session.totals.error}"]))
    return f'<pre class="transcript">{"".join(parts)}</pre>'


async def transcript_page(request: Request) -> Response:
    """`/{owner}/{repo}/issues/{number}/sessions/{job}/{key}`."""
    owner, name = request.path_params["owner"], request.path_params["repo"]
    number = int(request.path_params["number"])
    job, key = request.path_params["job"], request.path_params["key"]
    state = emulator(request)
    slug = f"{owner}/{name}"
    item = _issue(state, owner, name, number)
    found = _read(state, slug, number) if item is not None else None
    chosen = [s for s in (found.sessions if found else ()) if s.job == job and s.key == key]
    if item is None or not chosen:
        return not_found(f"{slug} issue #{number} has no session {key} of job {job}.")
    session = chosen[0]
    issue = item_href(slug, number, pull=False)
    body = (
        STYLE
        + f'<h1>{escape(item["title"])} <span class="num">#{number}</span></h1>'
        + f"<p class='meta'>{escape(heading(session).removeprefix('── '))}</p>"
        + transcript_html(session)
    )
    crumbs = [(f"/#{slug}", slug), (f"{issue}#sessions", f"#{number}")]
    return page(f"#{number} {session.key} transcript", body, crumbs=crumbs)


ROUTES = [
    Route(
        "/{owner}/{repo}/issues/{number:int}/sessions/{job}/{key}", transcript_page, methods=["GET"]
    )
]
