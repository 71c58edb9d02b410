"""`conveyor status`: what the orchestrator is doing, from local files only (no forge call).

It reads `status.json` (written by every tick), the snapshot cache (each
issue's decoded state) and the issue's `events.jsonl`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from conveyor.cli.config_load import ConfigError, load_config, repo_home
from conveyor.cli.screen import say, say_lines
from conveyor.cli.status_list import known_issues, render_lines

if TYPE_CHECKING:
    from conveyor.core.state import IssueState

LAST_EVENTS = 10


def _table(status: dict[str, Any]) -> list[str]:
    lines = [f"{status.get('repo', '?')} (lane {status.get('lane', '?')})"]
    lines.append(f"as of {status.get('written_at', '?')}")
    if status.get("cooling_down"):
        lines.append("cooling down: no new starts")
    queue = status.get("queue") or {}
    lines.append("queue: " + (", ".join(f"{s} {_nums(n)}" for s, n in queue.items()) or "empty"))
    lines.extend(f"waiting: #{w['issue']} {w['why']}" for w in status.get("waiting", []))
    jobs = status.get("jobs", [])
    lines.append(f"jobs: {len(jobs)}")
    for job in jobs:
        cost = f"${job['cost_usd']:.2f}" + (
            f" (+{job['unknown_cost_sessions']} unknown)" if job["unknown_cost_sessions"] else ""
        )
        lines.append(
            f"  #{job['issue']} {job['stage']}: session {job['session'] or '-'}, context "
            f"{job['context'] or 0}/{job['context_budget'] or '-'}, {cost}, "
            f"running {_duration(job['running_seconds'])}"
            + (f", on worker {job['worker']}" if job.get("worker") else "")
        )
    lines.extend(f"pause {p['kind']}: {p['reason']}" for p in status.get("pauses", []))
    lines.extend(f"hold #{h['issue']} {h['stage']}: {h['reason']}" for h in status.get("holds", []))
    for stop in status.get("stopped", []):
        lines.append(f"stopped #{stop['issue']} {stop['control']}: {stop['reason']}")
        lines.append(f"  resume: {stop['resume']}")
    for operation, streak in (status.get("degraded") or {}).items():
        lines.append(f"degraded {operation}: failed {streak} times in a row")
    today = status.get("today") or {}
    unknown = today.get("unknown_cost_sessions", 0)
    lines.append(
        f"today: ${today.get('cost_usd', 0):.2f}"
        + (f" (+{unknown} sessions of unknown cost)" if unknown else "")
        + f", {today.get('tokens', 0)} tokens in {today.get('sessions', 0)} sessions"
    )
    return lines


def _nums(numbers: list[int]) -> str:
    return " ".join(f"#{n}" for n in numbers)


def _duration(seconds: int) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s"


def issue_report(
    home: Path, repo: str, number: int, status: dict[str, Any] | None
) -> dict[str, Any]:
    """Everything local about one issue: its cached state, last events, job, hold and stop."""
    from conveyor.job.events import EVENTS_FILE, read_events
    from conveyor.orchestrator.shell.snapshot_store import CACHE_FILE, load_cached_issue
    from conveyor.orchestrator.shell.status_file import resume_command

    cached = load_cached_issue(home / CACHE_FILE, number)
    state = None if cached is None or cached.state is None else cached.state
    run_dir = home / "runs" / f"issue-{number}"
    events = read_events(run_dir / EVENTS_FILE)[-LAST_EVENTS:]
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
            "resume": resume_command(repo, number, state.stopped.control),
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
    from conveyor.ops.issue_md import read_taken

    try:
        view = IssueView.model_validate_json((run_dir / VIEW_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    taken = read_taken(run_dir)
    facts = view.facts
    return None if taken is None else taken.title, list(facts.labels), facts.state


def _state_line(state: dict[str, Any]) -> str:
    parts = [f"stage {state.get('stage')}"]
    if state.get("pr"):
        parts.append(f"PR #{state['pr']}")
    if lease := state.get("lease"):
        parts.append(f"lease {lease.get('lane')} since {lease.get('at')}")
    findings = state.get("findings") or []
    open_ = [f for f in findings if f.get("status") != "resolved"]
    parts.append(f"{len(open_)} of {len(findings)} findings open")
    return ", ".join(parts)


def _issue_lines(report: dict[str, Any], config_path: str) -> list[str]:
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
        lines.append(f"job: {job['stage']} running {_duration(job['running_seconds'])}")
    if hold := report["hold"]:
        lines.append(f"held at {hold['stage']}: {hold['reason']}")
    if stop := report["stop"]:
        lines.append(f"stopped by {stop['control']} at {stop['stage']}: {stop['reason']}")
        lines.append(f"resume: {stop['resume']}")
        run_now = f"conveyor drive --config {config_path} --issue {number} --take-stopped"
        lines.append(f"or run it now: {run_now}")
    lines.append(f"last {len(report['events'])} events:")
    for event in report["events"]:
        rest = {k: v for k, v in event.items() if k not in {"ts", "issue", "kind"}}
        lines.append(f"  {event.get('ts', '?')} {event.get('kind', '?')} {json.dumps(rest)}")
    return lines


def status(
    config: Annotated[
        Path | None,
        typer.Option("--config", envvar="CONVEYOR_CONFIG", help="The repository's config file."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    issue: Annotated[
        int | None, typer.Option("--issue", help="Show one issue in detail.", min=1)
    ] = None,
) -> None:
    """Show queues, jobs, holds, stops, spending and every issue's outcome and PR (local files)."""
    from conveyor.orchestrator.shell.status_file import STATUS_FILE, load_status

    try:
        loaded = load_config(config)
    except ConfigError as exc:
        for line in exc.lines:
            typer.echo(line, err=True)
        raise typer.Exit(2) from exc
    home = repo_home(loaded)
    try:
        current = load_status(home / STATUS_FILE)
    except ValueError as exc:
        typer.echo(f"{home / STATUS_FILE}: unreadable: {exc}", err=True)
        raise typer.Exit(1) from exc
    if issue is not None:
        report = issue_report(home, loaded.repo, issue, current)
        if not report["known"]:
            typer.echo(
                f"--issue {issue}: no such issue is known under {home} (not open at the last"
                " tick, and no job ran for it); `conveyor status` lists the issues known",
                err=True,
            )
            raise typer.Exit(1)
        if as_json:
            typer.echo(json.dumps(report, indent=2))  # JSON escapes every control character
        else:
            say_lines(_issue_lines(report, str(config or "$CONVEYOR_CONFIG")))
        return
    issues = known_issues(home)
    if as_json:
        typer.echo(
            json.dumps({**(current or {}), "issues": [x.as_json() for x in issues]}, indent=2)
        )
        return
    if current is None:
        say(f"no status yet: {home / STATUS_FILE} is written by `conveyor run` or `tick`")
    else:
        say_lines(_table(current))
    say_lines(render_lines(issues))
