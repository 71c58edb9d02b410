"""`conveyor status`: what the orchestrator is doing, from local files only (no forge call).

It reads `status.json` (written by every tick), the snapshot cache (each
issue's decoded state) and the issue's `events.jsonl` (`--issue N`: `cli/status_issue.py`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from conveyor.cli.box_gate import sandbox_line
from conveyor.cli.config_load import load_or_exit, repo_home
from conveyor.cli.live.lines import duration
from conveyor.cli.screen import say, say_lines
from conveyor.cli.status_list import known_issues, render_lines


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
            f"running {duration(job['running_seconds'])}"
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


def _print_issue(
    home: Path, issue: int, current: dict[str, Any] | None, path: Path, *, as_json: bool
) -> None:
    """`--issue N`: the issue in detail."""
    from conveyor.cli.status_issue import issue_lines, issue_report

    report = issue_report(home, issue, current, path)
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
        say_lines(issue_lines(report, path))


def _print_timeline(home: Path, issue: int) -> None:
    """The issue's timeline from its job folders and events, scaled to the terminal."""
    import shutil

    from conveyor.core.timeline import render_text
    from conveyor.job.timeline_read import read_timeline

    drawn = read_timeline(home, issue)
    if not drawn.bars:
        typer.echo(f"--issue {issue}: no job ran for it under {home / 'jobs'}", err=True)
        raise typer.Exit(1)
    say_lines(render_text(drawn, shutil.get_terminal_size().columns))


def _nums(numbers: list[int]) -> str:
    return " ".join(f"#{n}" for n in numbers)


def status(
    config: Annotated[
        Path | None,
        typer.Option("--config", envvar="CONVEYOR_CONFIG", help="The repository's config file."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    issue: Annotated[
        int | None, typer.Option("--issue", help="Show one issue in detail.", min=1)
    ] = None,
    timeline: Annotated[
        bool,
        typer.Option(
            "--timeline",
            help="With --issue: one bar per stage job, session and command run, to scale.",
        ),
    ] = False,
) -> None:
    """Show queues, jobs, holds, stops, spending and every issue's outcome and PR (local files)."""
    from conveyor.orchestrator.shell.status_file import STATUS_FILE, load_status

    if timeline and issue is None:
        typer.echo("--timeline: name the issue with --issue N", err=True)
        raise typer.Exit(2)
    named = load_or_exit(config)
    home = repo_home(named)
    if timeline and issue is not None:
        _print_timeline(home, issue)
        return
    try:
        current = load_status(home / STATUS_FILE)
    except ValueError as exc:
        typer.echo(f"{home / STATUS_FILE}: unreadable: {exc}", err=True)
        raise typer.Exit(1) from exc
    if issue is not None:
        _print_issue(home, issue, current, named.resolved, as_json=as_json)
        return
    issues = known_issues(home)
    if as_json:
        boxed = {"mode": named.config.sandbox.mode, "confined": named.config.sandbox.mode != "none"}
        shown = {**(current or {}), "sandbox": boxed, "issues": [x.as_json() for x in issues]}
        typer.echo(json.dumps(shown, indent=2))
        return
    say(sandbox_line(named.config))
    if current is None:
        say(f"no status yet: {home / STATUS_FILE} is written by `conveyor run` or `tick`")
    else:
        say_lines(_table(current))
    say_lines(render_lines(issues))
