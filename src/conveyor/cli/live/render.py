"""The live view as rich renderables (pure: a `View` in, renderables out)."""

from __future__ import annotations

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from conveyor.cli.live.lines import duration, summary
from conveyor.cli.live.model import JobRow, Spending, View


def _header(view: View) -> Text:
    text = Text.assemble(("conveyor live", "bold"), f"  {view.repo}  lane {view.lane}  ")
    if view.status_age is None:
        text.append("no status.json yet: `conveyor run` writes it at every pass", style="yellow")
    else:
        text.append(f"status written {duration(view.status_age)} ago")
    if view.stale:
        text.append("  (stale: is the orchestrator running?)", style="bold yellow")
    if view.cooling_down:
        text.append("  cooling down: no new starts", style="yellow")
    if view.problem:
        text.append(f"\n{view.problem}", style="bold red")
    return text


def _table(title: str, *columns: str) -> Table:
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, expand=False)
    for column in columns:
        table.add_column(column)
    return table


def _queue(view: View) -> RenderableType:
    table = _table("Queue by stage", "stage", "issues")
    for stage, issues in view.queue:
        table.add_row(stage, " ".join(f"#{n}" for n in issues))
    if not view.queue:
        table.add_row("-", "nothing queued")
    notes = Text()
    if view.merge_queue:
        notes.append("merge queue, in order: " + " ".join(f"#{n}" for n in view.merge_queue) + "\n")
    for held in view.holds:
        where = "waiting" if held.stage == "waiting" else f"held at {held.stage}"
        notes.append(f"#{held.issue} {where}: {held.reason}\n", style="yellow")
    for pause in view.pauses:
        notes.append(f"paused {pause}\n", style="yellow")
    for stop in view.stopped:
        notes.append(f"#{stop.issue} stopped by {stop.control}", style="bold red")
        notes.append(f" at {stop.stage}: {stop.reason}\n")
        if stop.resume:
            notes.append(f"    resume: {stop.resume}\n", style="dim")
    for operation, streak in view.degraded:
        notes.append(f"degraded: {operation} failed {streak} times in a row\n", style="red")
    notes.rstrip()
    return Group(table, notes) if notes.plain else table


def _context(job: JobRow) -> str:
    if job.context is None:
        return "-"
    if not job.context_budget:
        return f"{job.context:,}"
    return f"{job.context:,}/{job.context_budget:,} ({100 * job.context // job.context_budget}%)"


def _money(cost: float, unknown: int) -> str:
    return f"${cost:.2f}" + (f" (+{unknown} unknown)" if unknown else "")


def _jobs(view: View) -> Table:
    table = _table(
        "Running jobs", "issue", "stage", "session", "context", "tokens", "cost", "running"
    )
    for job in view.jobs:
        table.add_row(
            f"#{job.issue}",
            job.stage if job.worker is None else f"{job.stage} on {job.worker}",
            job.session or "-",
            _context(job),
            f"{job.tokens:,}",
            _money(job.cost_usd, job.unknown_cost),
            duration(job.running_seconds),
        )
    if not view.jobs:
        table.add_row("-", "no job running", "", "", "", "", "")
    return table


def _recent(view: View) -> Table:
    table = _table("Recent events", "time", "issue", "stage", "what")
    for event in view.recent:
        at = event.at.strftime("%H:%M:%S") if event.at else "-"
        issue = f"#{event.issue}" if event.issue is not None else "-"
        style = "red" if event.kind == "stopped" else "green" if event.kind == "merged" else None
        table.add_row(at, issue, event.stage, Text(summary(event), style=style or ""))
    if not view.recent:
        table.add_row("-", "-", "", "nothing yet")
    return table


def _spent(today: Spending | None) -> Text:
    if today is None:
        return Text("Spent today: not known yet", style="dim")
    text = Text.assemble(("Spent today: ", "bold"), f"${today.cost_usd:.2f}")
    if today.unknown_sessions:
        text.append(f" (+{today.unknown_sessions} session(s) of unknown cost)")
    if today.per_day is not None:
        text.append(f" of ${today.per_day:.2f} daily budget")
    text.append(f", {today.tokens:,} tokens in {today.sessions} sessions")
    return text


def render(view: View) -> RenderableType:
    """The whole live view: header, queue with holds and stops, jobs, recent events, spending."""
    return Group(_header(view), _queue(view), _jobs(view), _recent(view), _spent(view.today))
