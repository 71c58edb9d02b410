"""The pipeline page at `/pipeline`: each repository's queue by stage, running jobs, waits,
stops and spending, read from a Conveyor home's files when the forge is told where it is.

The forge holds no pipeline state of its own: `forge serve --pipeline HOME` (the demo's
home is found by itself in `DATA/conveyor/home`) points it at `$CONVEYOR_HOME`, whose
`<owner>__<repo>/status.json` each orchestrator tick rewrites and whose `ledger.sqlite`
the jobs append one row per session to. Both are read fresh on every request,
read-only; an unreadable file is named on the page, never a crash. The page reloads
itself every `REFRESH_SECONDS` (a meta refresh: no script), and links each issue to its
page and PR, on this forge or the real one (`web.pipeline_links`).
"""

from __future__ import annotations

import json
import sqlite3
from html import escape
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from conveyor.core.state import Stage
from conveyor.emulator.model.http import emulator
from conveyor.emulator.model.store import Store
from conveyor.emulator.web.layout import page, when
from conveyor.emulator.web.pipeline_links import Links, links_for
from conveyor.emulator.web.pipeline_reviews import reviews_section
from conveyor.emulator.web.timeline import pipeline_timelines

STATUS_FILE = "status.json"  # as `conveyor.orchestrator.shell.status_file` writes it
LEDGER_FILE = "ledger.sqlite"  # as `conveyor.job.ledger` writes it
REFRESH_SECONDS = 10  # as often as a person watching the queue wants news, and no more
_BY_ISSUE = (
    "SELECT issue, COUNT(*) AS sessions, SUM(input_tokens + output_tokens + cache_read_tokens"
    " + cache_write_tokens) AS tokens, SUM(cost_usd) AS cost, SUM(cost_usd IS NULL) AS unknown"
    " FROM sessions GROUP BY issue ORDER BY issue"
)


def _money(value: object) -> str:
    return f"${float(str(value or 0)):.2f}"


def _queue(links: Links, queue: dict[str, list[int]]) -> str:
    cells = []
    for stage in Stage:
        if stage in (Stage.DONE, Stage.PR_REVIEW):  # no issue waits at either
            continue
        numbers = queue.get(stage.value, [])
        shown = " ".join(links.issue(n) for n in numbers) or "<span class='meta'>-</span>"
        cells.append(
            f"<tr><td>{escape(stage.value)}</td><td>{len(numbers)}</td><td>{shown}</td></tr>"
        )
    head = "<tr><th>Stage</th><th>Waiting</th><th>Issues</th></tr>"
    return f"<h3>Queue by stage</h3><table>{head}{''.join(cells)}</table>"


def _job_row(links: Links, job: dict[str, Any]) -> str:
    context = f"{job.get('context') or 0}/{job.get('context_budget') or '-'}"
    cells = [
        links.issue(job.get("issue")),
        escape(str(job.get("stage"))),
        links.session(job),
        escape(str(job.get("model") or "-")),
        escape(context),
        _money(job.get("cost_usd")),
        f"{int(job.get('running_seconds') or 0)} s",
    ]
    return "<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>"


def _jobs(links: Links, jobs: list[dict[str, Any]]) -> str:
    if not jobs:
        return "<h3>Running jobs</h3><p class='meta'>None.</p>"
    rows = "".join(_job_row(links, j) for j in jobs)
    head = (
        "<tr><th>Issue</th><th>Stage</th><th>Session</th><th>Model</th><th>Context</th>"
        "<th>Cost</th><th>Running</th></tr>"
    )
    return f"<h3>Running jobs</h3><table>{head}{rows}</table>"


def _notes(links: Links, status: dict[str, Any]) -> str:
    lines = [f"{links.issue(w.get('issue'))} waits: {escape(str(w.get('why')))}"
             for w in status.get("waiting", [])]  # fmt: skip
    lines += [f"{links.issue(h.get('issue'))} held at {escape(str(h.get('stage')))}: "
              f"{escape(str(h.get('reason')))}" for h in status.get("holds", [])]  # fmt: skip
    lines += [f"paused ({escape(str(p.get('kind')))}): {escape(str(p.get('reason')))}"
              for p in status.get("pauses", [])]  # fmt: skip
    lines += [f"{links.issue(s.get('issue'))} stopped by {escape(str(s.get('control')))}: "
              f"{escape(str(s.get('reason')))}; resume: "
              f"<code>{escape(str(s.get('resume')))}</code>"
              for s in status.get("stopped", [])]  # fmt: skip
    if not lines:
        return ""
    return (
        "<h3>Waiting, held and stopped</h3><ul>" + "".join(f"<li>{x}</li>" for x in lines) + "</ul>"
    )


def _spending(links: Links, status: dict[str, Any], ledger: Path) -> str:
    today = status.get("today") or {}
    unknown = int(today.get("unknown_cost_sessions") or 0)
    parts = [
        "<h3>Spending</h3>",
        f"<p>Today: <b>{_money(today.get('cost_usd'))}</b>"
        + (f" (+{unknown} sessions of unknown cost)" if unknown else "")
        + f", {int(today.get('tokens') or 0):,} tokens in {int(today.get('sessions') or 0)}"
        " sessions.</p>",
    ]
    if not ledger.is_file():
        return "".join(parts)
    try:
        with sqlite3.connect(f"file:{ledger}?mode=ro", uri=True) as conn:
            conn.row_factory = sqlite3.Row
            rows = conn.execute(_BY_ISSUE).fetchall()
    except sqlite3.Error as error:
        return "".join(parts) + f"<p class='meta'>{escape(str(ledger))}: {escape(str(error))}</p>"
    lines = "".join(
        f"<tr><td>{links.issue(r['issue'])}</td><td>{r['sessions']}</td>"
        f"<td>{int(r['tokens'] or 0):,}</td>"
        f"<td>{_money(r['cost'])}{' (+unknown)' if r['unknown'] else ''}</td></tr>"
        for r in rows
    )
    head = "<tr><th>Issue</th><th>Sessions</th><th>Tokens</th><th>Cost</th></tr>"
    return "".join(parts) + f"<table>{head}{lines}</table>"


def _repo_section(store: Store, folder: Path) -> str:
    path = folder / STATUS_FILE
    try:
        status = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(status, dict):
            raise TypeError("expected a JSON object")
    except (OSError, ValueError, TypeError) as error:
        problem = f"<p>{escape(str(path))}: {escape(str(error))}</p>"
        return f"<section><h2>{escape(folder.name)}</h2>{problem}</section>"
    repo = str(status.get("repo") or folder.name.replace("__", "/", 1))
    links = links_for(store, status, repo)
    cooling = (
        "<p><b>Cooling down:</b> nothing new starts.</p>" if status.get("cooling_down") else ""
    )
    return (
        f"<section><h2>{escape(repo)}</h2><p class='meta'>lane {escape(str(status.get('lane')))}"
        f", as of {when(str(status.get('written_at') or ''))}</p>{cooling}"
        + _queue(links, status.get("queue") or {})
        + _jobs(links, status.get("jobs") or [])
        + reviews_section(links, status)
        + _notes(links, status)
        + _spending(links, status, folder / LEDGER_FILE)
        + pipeline_timelines(folder)
        + "</section>"
    )


def pipeline_html(home: Path | None, store: Store) -> str:
    """Every repository the home holds a status for, or what to do to see one."""
    if home is None:
        return (
            "<p>This forge was not told where a pipeline keeps its files: serve it with "
            "<code>conveyor forge serve --data DIR --pipeline CONVEYOR_HOME</code>.</p>"
        )
    folders = sorted(p.parent for p in home.glob(f"*/{STATUS_FILE}"))
    if not folders:
        return f"<p>No orchestrator has written a status under {escape(str(home))} yet.</p>"
    return "".join(_repo_section(store, folder) for folder in folders)


async def pipeline_page(request: Request) -> Response:
    """`/pipeline`."""
    state = emulator(request)
    every = f"<p class='meta'>This page reloads every {REFRESH_SECONDS} s.</p>"
    body = "<h1>Pipeline</h1>" + every + pipeline_html(state.pipeline_home, state.store)
    return page("Pipeline", body, refresh_seconds=REFRESH_SECONDS)


ROUTES = [Route("/pipeline", pipeline_page, methods=["GET"])]
