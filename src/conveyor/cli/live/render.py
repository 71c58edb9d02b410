"""The live view as rich renderables (pure: a `View` in, renderables out), laid out for a
terminal of 80 columns and 24 rows: the header, the progress and spending lines, the queue
with its holds and stops, the running jobs, then as many recent events as the rows left hold.

Every text is escaped (`core.printable`) before rich lays it out, so an escape never widens a
line past the terminal; each job and event is one row, cut with an ellipsis when too long.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from conveyor.cli.live.feed import Event
from conveyor.cli.live.lines import duration, summary
from conveyor.cli.live.model import JobRow, Spending, View
from conveyor.cli.live.progress import progress_line
from conveyor.core.printable import printable

Measure = Callable[[RenderableType], int]


def _safe(text: object) -> str:
    return printable(str(text), one_line=True)


def _header(view: View) -> Text:
    text = Text.assemble(
        ("conveyor live", "bold"), f"  {_safe(view.repo)}  lane {_safe(view.lane)}  "
    )
    if view.status_age is None:
        text.append("no status.json yet: `conveyor run` writes it at every pass", style="yellow")
    else:
        text.append(f"status written {duration(view.status_age)} ago")
    if view.stale:
        text.append("  (stale: is the orchestrator running?)", style="bold yellow")
    if view.cooling_down:
        text.append("  cooling down: no new starts", style="yellow")
    if view.problem:
        text.append(f"\n{_safe(view.problem)}", style="bold red")
    return text


def _numbers(issues: tuple[int, ...]) -> str:
    return " ".join(f"#{n}" for n in issues)


def _queue(view: View) -> Text:
    text = Text.assemble(("queue: ", "bold"))
    stages = [f"{stage} {_numbers(issues)}" for stage, issues in view.queue]
    text.append(" · ".join(stages) if stages else "nothing queued")
    if view.merge_queue:
        text.append(f"\nmerge queue, in order: {_numbers(view.merge_queue)}")
    for held in view.holds:
        where = "waiting" if held.stage == "waiting" else f"held at {held.stage}"
        text.append(f"\n#{held.issue} {where}: {_safe(held.reason)}", style="yellow")
    for pause in view.pauses:
        text.append(f"\npaused {_safe(pause)}", style="yellow")
    for stop in view.stopped:
        text.append(f"\n#{stop.issue} stopped by {_safe(stop.control)}", style="bold red")
        text.append(f" at {stop.stage}: {_safe(stop.reason)}")
        if stop.resume:
            text.append(f"\n    resume: {_safe(stop.resume)}", style="dim")
    for operation, streak in view.degraded:
        text.append(f"\ndegraded: {operation} failed {streak} times in a row", style="red")
    return text


def _table(*columns: str) -> Table:
    table = Table(box=None, show_edge=False, pad_edge=False, expand=False)
    for column in columns:
        table.add_column(column, no_wrap=True, overflow="ellipsis", header_style="bold")
    return table


def _context(job: JobRow) -> str:
    if job.context is None:
        return "-"
    if not job.context_budget:
        return f"{job.context:,}"
    return f"{job.context:,}/{job.context_budget:,} ({100 * job.context // job.context_budget}%)"


def _money(cost: float, unknown: int) -> str:
    return f"${cost:.2f}" + (f" (+{unknown} unknown)" if unknown else "")


def _jobs(view: View) -> RenderableType:
    if not view.jobs:
        return Text("jobs: no job running", style="dim")
    table = _table("issue", "stage", "session", "context", "tokens", "cost", "running")
    for job in view.jobs:
        table.add_row(
            f"#{job.issue}",
            job.stage if job.worker is None else f"{job.stage} on {_safe(job.worker)}",
            _safe(job.session or "-"),
            _context(job),
            f"{job.tokens:,}",
            _money(job.cost_usd, job.unknown_cost),
            duration(job.running_seconds),
        )
    return table


def _event_line(event: Event) -> Text:
    at = event.at.strftime("%H:%M:%S") if event.at else "-"
    issue = f"#{event.issue}" if event.issue is not None else "-"
    style = "red" if event.kind == "stopped" else "green" if event.kind == "merged" else ""
    text = Text(f"{at}  {issue:<5} {event.stage:<9} ", no_wrap=True, overflow="ellipsis")
    text.append(_safe(summary(event)), style=style)
    return text


def _recent(view: View, shown: int | None) -> RenderableType:
    events = view.recent if shown is None else view.recent[len(view.recent) - shown :]
    if not events:
        return Text("events: nothing yet", style="dim")
    return Group(Text("events", style="bold"), *(_event_line(event) for event in events))


def _spent(today: Spending | None) -> Text:
    if today is None:
        return Text("spent today: not known yet", style="dim")
    text = Text.assemble(("spent today ", "bold"), f"${today.cost_usd:.2f}")
    if today.per_day is not None:
        text.append(f" of ${today.per_day:.2f}")
    if today.unknown_sessions:
        text.append(f" (+{today.unknown_sessions} of unknown cost)")
    text.append(f", {today.tokens:,} tokens, {today.sessions} sessions")
    return text


def render(view: View, *, rows: int | None = None, measure: Measure | None = None) -> Group:
    """The whole live view; given the terminal's `rows` and a `measure` of how many rows a
    renderable takes, only as many recent events (the newest) as fit below the rest."""
    progress = Text(progress_line(view.progress), style="bold")
    top = Group(_header(view), progress, _spent(view.today), _queue(view), _jobs(view))
    shown = None
    if rows is not None and measure is not None:
        # One row for the events' heading, one left free (the cursor's, below the panel).
        shown = max(0, min(len(view.recent), rows - measure(top) - 2))
    return Group(*top.renderables, _recent(view, shown))
