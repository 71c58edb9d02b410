"""An issue's timeline read from a Conveyor home's files, and its SVG for the forge's pages.

`<home>/<owner>__<repo>/jobs/issue-N-*/job.json` (one per stage job), the issue's
`runs/issue-N/events.jsonl` (its sessions) and each job's `logs/*.run.json` (its
command runs), read-only, as `/pipeline` reads `status.json`; `conveyor status
--timeline` and `bench/pipeline_real.py` read them the same way. The bars are built
and drawn by `conveyor.core.timeline`, every label escaped.
"""

from __future__ import annotations

import json
from pathlib import Path

from conveyor.core.timeline import RUN_SUFFIX, Timeline, build_timeline, render_svg

EVENTS = "events.jsonl"  # as `conveyor.job.events` writes it
SHOWN_ON_PIPELINE = 5  # the newest issues a repository's section draws


def repo_folder(home: Path, slug: str) -> Path:
    """A repository's folder in a Conveyor home: `owner__name`."""
    return home / slug.replace("/", "__", 1)


def _json(path: Path) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _events(path: Path) -> list[dict[str, object]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    events = []
    for line in lines:
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict):
            events.append(event)
    return events


def read_timeline(folder: Path, issue: int) -> Timeline:
    """Issue `issue`'s bars from the repository folder `folder` (nothing readable: none)."""
    jobs: list[dict[str, object]] = []
    commands: dict[str, list[dict[str, object]]] = {}
    for path in sorted((folder / "jobs").glob(f"issue-{issue}-*/job.json")):
        record = _json(path)
        if not isinstance(record, dict):
            continue
        jobs.append(record)
        job = str(record.get("job_id") or path.parent.name)
        for run in sorted((path.parent / "logs").glob(f"*{RUN_SUFFIX}")):
            made = _json(run)
            if isinstance(made, dict):
                commands.setdefault(job, []).append(made)
    events = _events(folder / "runs" / f"issue-{issue}" / EVENTS)
    return build_timeline(jobs, events, commands)


def issues_with_jobs(folder: Path) -> list[int]:
    """The issues that have job folders in `folder`, newest job first."""
    newest: dict[int, float] = {}
    for path in (folder / "jobs").glob("issue-*-*/job.json"):
        number = path.parent.name.split("-")[1]
        if number.isdigit():
            newest[int(number)] = max(newest.get(int(number), 0.0), path.stat().st_mtime)
    return sorted(newest, key=lambda n: -newest[n])


def timeline_html(folder: Path, issue: int) -> str:
    """The issue's timeline as a section of a page, or nothing when no job ran."""
    svg = render_svg(read_timeline(folder, issue))
    if not svg:
        return ""
    return f'<section class="timeline"><h3>Timeline of #{issue}</h3>{svg}</section>'


def issue_timeline(home: Path | None, slug: str, issue: int) -> str:
    """The issue page's timeline, when the forge knows a pipeline home."""
    if home is None:
        return ""
    return timeline_html(repo_folder(home, slug), issue)


def pipeline_timelines(folder: Path) -> str:
    """The newest issues' timelines for a repository's section of `/pipeline`."""
    return "".join(timeline_html(folder, n) for n in issues_with_jobs(folder)[:SHOWN_ON_PIPELINE])
