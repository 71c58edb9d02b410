"""The pipeline page at `/pipeline`: each repository's queue by stage, running jobs, waits,
stops and spending, read from a Conveyor home when the forge is handed its reader.

The forge holds no pipeline state of its own, and no file name or format of the
pipeline's: `forge serve --pipeline HOME` (the demo's home is found by itself in
`DATA/conveyor/home`) hands it a `PipelineReader` (`core.pipeline_view`) built from the
modules that write `status.json` and `ledger.sqlite` (`orchestrator/shell/pipeline_files.py`).
It reads them fresh on every request, read-only; an unreadable file is named on the page,
never a crash. The page reloads itself every `REFRESH_SECONDS` (a meta refresh: no script),
and links each issue to its page and PR, on this forge or the real one (`web.pipeline_links`).
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from conveyor.core.pipeline_view import IssueSpending, PipelineReader, RepoReport
from conveyor.core.state import FINAL, Stage
from conveyor.emulator.model.http import emulator
from conveyor.emulator.model.store import Store
from conveyor.emulator.web.layout import page, when
from conveyor.emulator.web.pipeline_links import Links, links_for
from conveyor.emulator.web.pipeline_reviews import reviews_section
from conveyor.emulator.web.timeline import pipeline_timelines

REFRESH_SECONDS = 10  # as often as a person watching the queue wants news, and no more


def _money(value: object) -> str:
    return f"${float(str(value or 0)):.2f}"


def _queue(links: Links, queue: dict[str, list[int]]) -> str:
    cells = []
    for stage in Stage:
        if stage in FINAL or stage is Stage.PR_REVIEW:  # no issue waits at these
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


def _notes(links: Links, status: Mapping[str, Any]) -> str:
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


def _spending(links: Links, status: Mapping[str, Any], report: RepoReport) -> str:
    today = status.get("today") or {}
    unknown = int(today.get("unknown_cost_sessions") or 0)
    parts = [
        "<h3>Spending</h3>",
        f"<p>Today: <b>{_money(today.get('cost_usd'))}</b>"
        + (f" (+{unknown} sessions of unknown cost)" if unknown else "")
        + f", {int(today.get('tokens') or 0):,} tokens in {int(today.get('sessions') or 0)}"
        " sessions.</p>",
    ]
    if report.spending_problem is not None:
        return "".join(parts) + f"<p class='meta'>{escape(report.spending_problem)}</p>"
    if not report.spending:
        return "".join(parts)
    lines = "".join(_spent_row(links, r) for r in report.spending)
    head = "<tr><th>Issue</th><th>Sessions</th><th>Tokens</th><th>Cost</th></tr>"
    return "".join(parts) + f"<table>{head}{lines}</table>"


def _spent_row(links: Links, row: IssueSpending) -> str:
    cost = _money(row.cost_usd) + (" (+unknown)" if row.unknown else "")
    return (
        f"<tr><td>{links.issue(row.issue)}</td><td>{row.sessions}</td>"
        f"<td>{row.tokens:,}</td><td>{cost}</td></tr>"
    )


def _repo_section(store: Store, reader: PipelineReader, report: RepoReport) -> str:
    status = report.status
    if status is None:
        problem = f"<p>{escape(report.problem or 'unreadable')}</p>"
        return f"<section><h2>{escape(report.slug)}</h2>{problem}</section>"
    links = links_for(store, status, report.slug)
    cooling = (
        "<p><b>Cooling down:</b> nothing new starts.</p>" if status.get("cooling_down") else ""
    )
    return (
        f"<section><h2>{escape(report.slug)}</h2><p class='meta'>lane "
        f"{escape(str(status.get('lane')))}, as of {when(str(status.get('written_at') or ''))}"
        f"</p>{cooling}"
        + _queue(links, status.get("queue") or {})
        + _jobs(links, status.get("jobs") or [])
        + reviews_section(links, status)
        + _notes(links, status)
        + _spending(links, status, report)
        + pipeline_timelines(reader, report.slug, report.recent)
        + "</section>"
    )


def pipeline_html(reader: PipelineReader | None, store: Store) -> str:
    """Every repository the home holds a status for, or what to do to see one."""
    if reader is None:
        return (
            "<p>This forge was not told where a pipeline keeps its files: serve it with "
            "<code>conveyor forge serve --data DIR --pipeline CONVEYOR_HOME</code>.</p>"
        )
    reports = reader.repositories()
    if not reports:
        return f"<p>No orchestrator has written a status under {escape(str(reader.home))} yet.</p>"
    return "".join(_repo_section(store, reader, report) for report in reports)


async def pipeline_page(request: Request) -> Response:
    """`/pipeline`."""
    state = emulator(request)
    every = f"<p class='meta'>This page reloads every {REFRESH_SECONDS} s.</p>"
    body = "<h1>Pipeline</h1>" + every + pipeline_html(state.pipeline, state.store)
    return page("Pipeline", body, refresh_seconds=REFRESH_SECONDS)


ROUTES = [Route("/pipeline", pipeline_page, methods=["GET"])]
