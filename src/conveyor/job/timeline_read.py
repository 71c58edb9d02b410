"""An issue's timeline read from a repository's folder: what the jobs leave, read-only.

`jobs/issue-N-*/job.json` (one per stage job), the issue's `runs/issue-N/events.jsonl`
(its sessions) and each job's `logs/*.run.json` (its command runs, `core.timeline`'s
`command_record`), read with the modules that write them; the bars are built by
`core.timeline`. `conveyor status --timeline`, the forge's pages (handed this reader by
the CLI, `orchestrator/shell/pipeline_files.py`) and the benches read it. Nothing readable
is no bars, never an error: a job folder being written reads as what is there.
"""

from __future__ import annotations

import json
from pathlib import Path

from conveyor.core.timeline import RUN_SUFFIX, Timeline, build_timeline
from conveyor.job.events import EVENTS_FILE, read_events
from conveyor.job.jobfile import JOB_FILE


def _object(path: Path) -> dict[str, object] | None:
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None


def read_timeline(repo_home: Path, issue: int) -> Timeline:
    """Issue `issue`'s bars from the repository folder `repo_home` (nothing readable: none)."""
    jobs: list[dict[str, object]] = []
    commands: dict[str, list[dict[str, object]]] = {}
    for path in sorted((repo_home / "jobs").glob(f"issue-{issue}-*/{JOB_FILE}")):
        record = _object(path)
        if record is None:
            continue
        jobs.append(record)
        job = str(record.get("job_id") or path.parent.name)
        for run in sorted((path.parent / "logs").glob(f"*{RUN_SUFFIX}")):
            made = _object(run)
            if made is not None:
                commands.setdefault(job, []).append(made)
    try:
        events = read_events(repo_home / "runs" / f"issue-{issue}" / EVENTS_FILE, lenient=True)
    except (OSError, ValueError):  # unreadable, or not UTF-8: no sessions to draw
        events = []
    return build_timeline(jobs, events, commands)


def issues_with_jobs(repo_home: Path) -> list[int]:
    """The issues that have job folders in `repo_home`, newest job first."""
    newest: dict[int, float] = {}
    for path in (repo_home / "jobs").glob(f"issue-*-*/{JOB_FILE}"):
        number = path.parent.name.split("-")[1]
        try:
            moment = path.stat().st_mtime
        except OSError:
            continue  # a job folder being moved away
        if number.isdigit():
            newest[int(number)] = max(newest.get(int(number), 0.0), moment)
    return sorted(newest, key=lambda n: -newest[n])
