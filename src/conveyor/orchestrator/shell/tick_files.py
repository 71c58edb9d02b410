"""The orchestrator's own files: `orchestrator.log` (one line per decision) and `watchdog.json`."""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path

from conveyor.job.jobfile import JOB_FILE, load_job_file
from conveyor.orchestrator.memory import WatchMemory, memory_from_json, memory_to_json
from conveyor.orchestrator.shell.executor import Executor, JobHandle, LocalExecutor, RemoteJobs

LOG_FILE = "orchestrator.log"
WATCHDOG_FILE = "watchdog.json"


class OrchestratorLog:
    """Appends `<UTC time> <line>` to `orchestrator.log`, and echoes to `echo` when given."""

    def __init__(self, path: Path, echo: bool = False) -> None:
        self.path = path
        self.echo = echo
        path.parent.mkdir(parents=True, exist_ok=True)

    def write(self, now: datetime, line: str) -> None:
        """One line, stamped."""
        text = f"{now.isoformat(timespec='seconds')} {line}"
        with self.path.open("a", encoding="utf-8") as out:
            out.write(text + "\n")
        if self.echo:
            print(text, flush=True)  # noqa: T201 - `conveyor run` reports on stdout


def end_line(home: Path, issue: int, handle: JobHandle, executor: Executor) -> str:
    """`job ended #N STAGE pid P`, with its exit status and the outcome its job.json gives."""
    if isinstance(executor, RemoteJobs):
        return f"job ended #{issue} {handle.stage.value}{executor.end_note(handle)}"
    line = f"job ended #{issue} {handle.stage.value} pid {handle.pid}"
    exit_code = executor.exit_code(handle) if isinstance(executor, LocalExecutor) else None
    if exit_code is not None:
        line += f" exit {exit_code}"
    folders = (
        [handle.job_dir] if handle.job_dir else sorted((home / "jobs").glob(f"issue-{issue}-*"))
    )
    for folder in reversed(folders):
        try:
            record = load_job_file(folder / JOB_FILE)
        except (OSError, ValueError):
            continue
        if record.pid == handle.pid:
            outcome = record.finished.outcome if record.finished else "no outcome recorded"
            return f"{line}: {outcome}"
    return line


def load_memory(path: Path) -> tuple[WatchMemory, str | None]:
    """The watchdog's memory, or a fresh one and why the file could not be read."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return WatchMemory(), None
    except OSError as error:
        return WatchMemory(), f"{path}: cannot read: {error.strerror}"
    try:
        return memory_from_json(json.loads(text)), None
    except ValueError as error:
        return WatchMemory(), f"{path}: {error}; starting with a fresh memory"


def save_memory(path: Path, memory: WatchMemory) -> None:
    """Write watchdog.json atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(memory_to_json(memory), indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)
