"""`conveyor status --issue N`: one issue from local files: state, job, hold, stop, last events.

The events read as the live view prints them (`cli/live/lines.py`), one line each.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from conveyor.cli.live.feed import is_news, parse_event
from conveyor.cli.live.lines import duration, line
from conveyor.core.config_hint import config_flag

if TYPE_CHECKING:
    from conveyor.core.state import IssueState

LAST_EVENTS = 10


def issue_report(
    home: Path, number: int, status: dict[str, Any] | None, config: Path | None
) -> dict[str, Any]:
    """Everything local about one issue: its cached state, last events, job, hold and stop.

    `config` is named in the resume command of a stop the status file does not show yet.
    """
    from conveyor.job.entry import shown_command
    from conveyor.job.events import EVENTS_FILE, read_events
    from conveyor.orchestrator.shell.snapshot_store import CACHE_FILE, load_cached_issue
    from conveyor.orchestrator.shell.status_file import resume_command

    cached = load_cached_issue(home / CACHE_FILE, number)
    state = None if cached is None or cached.state is None else cached.state
    run_dir = home / "runs" / f"issue-{number}"
    # As the live view tells them: a lane's claim of its own issue again is not news.
    told = [event for event in read_events(run_dir / EVENTS_FILE) if is_news(parse_event(event))]
    events = told[-LAST_EVENTS:]
    title, labels = (
        (None, []) if cached is None else (cached.issue.title, list(cached.issue.labels))
    )
    if cached is None and (left := _left_by_last_job(run_dir)) is not None:
        title, labels, state = left
    seen = status or {}

    def mine(key: str) -> dict[str, Any] | None:
        return next((e for e in seen.get(key, []) if e.get("issue") == number), None)

    stop = mine("stopped")
    if stop is None and state is not None and state.stopped is not None:
        stop = {
            "issue": number,
            "control": state.stopped.control.value,
            "reason": state.stopped.reason,
            "stage": state.stopped.stage.value,
            "at": state.stopped.at.isoformat(),
            "resume": resume_command(number, config, shown_command()),
        }
    return {
        "issue": number,
        "title": title,
        "labels": labels,
        "known": cached is not None or run_dir.is_dir() or bool(events) or _in_status(seen, number),
        "state": None if state is None else state.model_dump(mode="json"),
        "state_problem": None if cached is None else cached.state_problem,
        "job": mine("jobs"),
        "hold": mine("holds"),
        "stop": stop,
        "events": events,
    }


def _in_status(status: dict[str, Any], number: int) -> bool:
    """Whether the orchestrator's status names the issue anywhere (a job, hold, stop, queue)."""
    lists = ("jobs", "holds", "stopped", "waiting")
    if any(e.get("issue") == number for key in lists for e in status.get(key, [])):
        return True
    queued = [n for numbers in (status.get("queue") or {}).values() for n in numbers]
    return number in queued or number in status.get("merge_queue", [])


def _left_by_last_job(run_dir: Path) -> tuple[str | None, list[str], IssueState | None] | None:
    """An issue no longer in the cache (closed): its title, labels and state as the last job
    left them, or None when no job left a view."""
    from conveyor.job.view_file import VIEW_FILE, IssueView
    from conveyor.ops.forge.issue_md import read_taken

    try:
        view = IssueView.model_validate_json((run_dir / VIEW_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    taken = read_taken(run_dir)
    facts = view.facts
    return None if taken is None else taken.title, list(facts.labels), facts.state


def _moment(at: object) -> str:
    """An ISO time as the event lines show one (`2026-12-04 17:55:50`), UTC."""
    try:
        moment = datetime.fromisoformat(str(at))
    except ValueError:
        return str(at)
    moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")


def _state_line(state: dict[str, Any]) -> str:
    parts = [f"stage {state.get('stage')}"]
    if state.get("pr"):
        parts.append(f"PR #{state['pr']}")
    if lease := state.get("lease"):
        parts.append(f"lease {lease.get('lane')} since {_moment(lease.get('at'))}")
    findings = state.get("findings") or []
    open_ = [f for f in findings if f.get("status") != "resolved"]
    parts.append(f"{len(open_)} of {len(findings)} findings open")
    return ", ".join(parts)


def issue_lines(report: dict[str, Any], config: Path | None) -> list[str]:
    """The report as a person reads it: a few lines of facts, then one line per event."""
    from conveyor.job.entry import shown_command

    number = report["issue"]
    lines = [f"#{number} {report['title'] or '(not in the snapshot cache)'}"]
    if report["labels"]:
        lines.append("labels: " + ", ".join(report["labels"]))
    state = report["state"]
    if report["state_problem"]:
        lines.append(f"state: {report['state_problem']}")
    elif state is None:
        lines.append("state: none saved yet")
    else:
        lines.append("state: " + _state_line(state) + " (every field: --json)")
    if job := report["job"]:
        lines.append(f"job: {job['stage']} running {duration(job['running_seconds'])}")
    if hold := report["hold"]:
        lines.append(f"held at {hold['stage']}: {hold['reason']}")
    if stop := report["stop"]:
        lines.append(f"stopped by {stop['control']} at {stop['stage']}: {stop['reason']}")
        lines.append(f"resume: {stop['resume']}")
        named = "" if config is None else config_flag(config, Path.home())
        run_now = f"{shown_command()} drive{named} --issue {number} --take-stopped"
        lines.append(f"or run it now: {run_now}")
    lines.append(f"last {len(report['events'])} events:")
    lines.extend(f"  {line(parse_event(event))}" for event in report["events"])
    return lines
