"""The live view's display: refreshing a rich `Live` panel, or printing lines off a terminal."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from conveyor.cli.live.feed import EventState, absorb, chronological, is_news
from conveyor.cli.live.files import EventTail, JobFiles, load_status_or_problem
from conveyor.cli.live.lines import Printed, mark_printed, next_lines
from conveyor.cli.live.model import View, build_view
from conveyor.cli.live.render import render
from conveyor.cli.screen import Printable
from conveyor.core.config import repo_of_dirname
from conveyor.core.printable import printable
from conveyor.orchestrator.shell.status_file import STATUS_FILE

if TYPE_CHECKING:
    from rich.console import Console, RenderableType
    from rich.live import Live


class LiveView:
    """The view of one repository home: `refresh()` reads what changed and shows it."""

    def __init__(
        self,
        repo_home: Path,
        console: Console,
        *,
        money_per_day: float | None = None,
        backlog: int = 0,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.repo_home = repo_home
        self.console = console
        self._per_day = money_per_day
        self._clock = clock
        self._tail = EventTail(repo_home / "runs")
        self._jobs = JobFiles(repo_home / "jobs")
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None
        self._live: Live | None = None
        self._shown: View | None = None
        first = chronological(self._tail.read_new())
        self._events = absorb(EventState(), first)
        shown = backlog if backlog > 0 and not console.is_terminal else 0  # else: the panel
        told = [event for event in first if is_news(event)]  # the backlog counts lines
        kept = told[max(0, len(told) - shown) :] if shown else []
        left = [event for event in first if event not in kept]
        self._printed, lines = next_lines(mark_printed(Printed(), left), kept)
        self._print(lines)

    def view(self) -> View:
        """The view as the files stand now."""
        status, problem = load_status_or_problem(self.repo_home / STATUS_FILE)
        jobs = self._jobs.read()
        return build_view(
            status,
            self._events,
            jobs,
            self._clock(),
            money_per_day=self._per_day,
            status_problem=problem,
            repo=repo_of_dirname(self.repo_home.name),  # until status says
        )

    def refresh(self) -> None:
        """Read new events and files; redraw the panel, or print a line per new event."""
        with self._lock:
            new = self._tail.read_new()
            self._events = absorb(self._events, new)
            if self._live is not None:
                view = self.view()
                if view != self._shown:  # redraw only what changed (ages tick once a second)
                    fitted = render(view, rows=self.console.size.height, measure=self._rows)
                    self._live.update(Printable(fitted), refresh=True)
                    self._shown = view
                return
            self._printed, lines = next_lines(self._printed, new)
            self._print(lines)

    def _rows(self, renderable: RenderableType) -> int:
        """How many rows `renderable` takes on this console."""
        return len(self.console.render_lines(renderable, pad=False))

    def _print(self, lines: list[str]) -> None:
        for text in lines:  # forge text: its control and bidi characters escaped
            self.console.print(
                printable(text, one_line=True),
                markup=False,
                highlight=False,
                emoji=False,
                soft_wrap=True,
            )

    def start(self, interval: float = 0.25) -> LiveView:
        """Show the panel (on a terminal) and refresh it every `interval` seconds in a thread."""
        if self.console.is_terminal:
            from rich.live import Live

            self._live = Live(console=self.console, auto_refresh=False, transient=False)
            self._live.start()
        self._thread = threading.Thread(target=self._loop, args=(interval,), daemon=True)
        self._thread.start()
        self.refresh()
        return self

    def _loop(self, interval: float) -> None:
        while not self._stopped.wait(interval):
            self.refresh()

    def stop(self) -> None:
        """Stop refreshing after one last refresh; the last frame stays on screen. Idempotent."""
        if self._stopped.is_set():
            return
        self._stopped.set()
        if self._thread is not None:
            self._thread.join()
        self.refresh()
        with self._lock:
            if self._live is not None:
                self._live.stop()
                self._live = None


def start_live(
    repo_home: Path,
    console: Console | None = None,
    *,
    money_per_day: float | None = None,
    backlog: int = 0,
    interval: float = 0.25,
) -> LiveView:
    """Show the live view of `repo_home` while the caller works; call `.stop()` when done."""
    if console is None:
        from rich.console import Console

        console = Console()
    view = LiveView(repo_home, console, money_per_day=money_per_day, backlog=backlog)
    return view.start(interval)
