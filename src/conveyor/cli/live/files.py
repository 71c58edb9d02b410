"""Reading the orchestrator's files as they grow: events by offset, job.json when it changed."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from conveyor.cli.live.feed import Event, parse_event, unreadable
from conveyor.job.events import EVENTS_FILE
from conveyor.job.jobfile import JOB_FILE, JobRecord, load_job_file
from conveyor.orchestrator.shell.executor import RecordedJob, process_alive
from conveyor.orchestrator.shell.status_file import load_status

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
            text = raw.decode("utf-8", "replace").strip()
            events.append(parse_event(decoded, text) if ok else unreadable(str(path), count))
        self._offsets[path] = (offset + len(whole), count)
        return events


class JobFiles:
    """Every `jobs/*/job.json`: parsed again only when it changed, never again once finished."""

    def __init__(self, jobs: Path) -> None:
        self._jobs = jobs
        self._cache: dict[str, tuple[_Stamp, JobRecord | None]] = {}

    def read(self) -> list[RecordedJob]:
        """The recorded jobs, oldest first, each with whether its process runs now."""
        try:
            names = [entry.name for entry in os.scandir(self._jobs) if entry.is_dir()]
        except OSError:
            names = []
        found: list[RecordedJob] = []
        cache: dict[str, tuple[_Stamp, JobRecord | None]] = {}
        for name in names:
            path = self._jobs / name / JOB_FILE
            old = self._cache.get(name)
            if old and old[1] is not None and old[1].finished is not None:
                cache[name] = old  # a finished job does not change: no stat, no parse
            else:
                try:
                    info = path.stat()
                except OSError:
                    continue
                stamp = (info.st_mtime_ns, info.st_size)
                cache[name] = (stamp, old[1] if old and old[0] == stamp else _load_job(path))
            record = cache[name][1]
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


def load_status_or_problem(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    try:
        return load_status(path), None
    except (OSError, ValueError) as exc:
        return None, f"{path}: unreadable: {exc}"
