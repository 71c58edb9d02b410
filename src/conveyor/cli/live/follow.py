"""The live view's I/O: reading the orchestrator's files as they grow, and showing them."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from conveyor.cli.live.feed import Event, EventState, absorb, parse_event, unreadable
from conveyor.cli.live.lines import Printed, next_lines
from conveyor.cli.live.model import View, build_view
from conveyor.cli.live.render import render
from conveyor.job.events import EVENTS_FILE
from conveyor.job.jobfile import JOB_FILE, JobRecord, load_job_file
from conveyor.orchestrator.shell.executor import RecordedJob, process_alive
from conveyor.orchestrator.shell.status_file import STATUS_FILE, load_status

if TYPE_CHECKING:
    from rich.console import Console
    from rich.live import Live

_Stamp = tuple[int, int]


class EventTail:
    """Reads every `runs/*/events.jsonl` from where the last read stopped (whole lines only)."""

    def __init__(self, runs: Path) -> None:
        self._runs = runs
        self._offsets: dict[Path, tuple[int, int]] = {}  # path -> (bytes read, lines read)

    def read_new(self) -> list[Event]:
        """The events appended since the last call, file by file."""
        found: list[Event] = []
        for path in sorted(self._runs.glob(f"*/{EVENTS_FILE}")):
            found.extend(self._read(path))
        return found

    def _read(self, path: Path) -> list[Event]:
        offset, count = self._offsets.get(path, (0, 0))
        try:
            size = path.stat().st_size
            if size < offset:  # rewritten from scratch: read again; repeats are dropped later
                offset, count = 0, 0
            if size == offset:
                return []
            with path.open("rb") as stream:
                stream.seek(offset)
                data = stream.read(size - offset)
        except OSError:
            return []
        whole = data[: data.rfind(b"\n") + 1]  # a line still being written waits for next time
        events: list[Event] = []
        for raw in whole.splitlines():
            count += 1
            if not raw.strip():
                continue
            try:
                decoded: Any = json.loads(raw)
            except ValueError:
                decoded = None
            ok = isinstance(decoded, dict)
            events.append(parse_event(decoded) if ok else unreadable(str(path), count))
        self._offsets[path] = (offset + len(whole), count)
        return events


class JobFiles:
    """Every `jobs/*/job.json`, parsed again only when it changed; liveness checked each read."""

    def __init__(self, jobs: Path) -> None:
        self._jobs = jobs
        self._cache: dict[Path, tuple[_Stamp, JobRecord | None]] = {}

    def read(self) -> list[RecordedJob]:
        """The recorded jobs, oldest first; unreadable files are skipped."""
        found: list[RecordedJob] = []
        cache: dict[Path, tuple[_Stamp, JobRecord | None]] = {}
        for path in self._jobs.glob(f"*/{JOB_FILE}"):
            try:
                info = path.stat()
            except OSError:
                continue
            stamp = (info.st_mtime_ns, info.st_size)
            old = self._cache.get(path)
            record = old[1] if old and old[0] == stamp else _load_job(path)
            cache[path] = (stamp, record)
            if record is not None:
                alive = record.finished is None and process_alive(record.pid, record.process_start)
                found.append(RecordedJob(path.parent, record, alive))
        self._cache = cache
        return sorted(found, key=lambda job: job.record.started_at)


def _load_job(path: Path) -> JobRecord | None:
    try:
        return load_job_file(path)
    except (OSError, ValueError):
        return None


def _load_status(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    try:
        return load_status(path), None
    except (OSError, ValueError) as exc:
        return None, f"{path}: unreadable: {exc}"


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
        first = self._tail.read_new()
        self._events = absorb(EventState(), first)
        self._printed, lines = next_lines(Printed(), first)
        self._print(lines[-backlog:] if backlog > 0 else [])

    def view(self) -> View:
        """The view as the files stand now."""
        status, problem = _load_status(self.repo_home / STATUS_FILE)
        jobs = self._jobs.read()
        return build_view(
            status,
            self._events,
            jobs,
            self._clock(),
            money_per_day=self._per_day,
            status_problem=problem,
        )

    def refresh(self) -> None:
        """Read new events and files; redraw the panel, or print a line per new event."""
        with self._lock:
            new = self._tail.read_new()
            self._events = absorb(self._events, new)
            if self._live is not None:
                self._live.update(render(self.view()), refresh=True)
                return
            self._printed, lines = next_lines(self._printed, new)
            self._print(lines)

    def _print(self, lines: list[str]) -> None:
        for text in lines:
            self.console.print(text, markup=False, highlight=False, emoji=False, soft_wrap=True)

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

    def wait(self) -> None:
        """Block until `stop()` (Ctrl-C in the waiting thread ends the wait)."""
        while not self._stopped.wait(0.5):
            pass

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
