"""Recorded job.json files (tests/data/orchestrator/jobs.json) read as the watchdog sees them."""

from __future__ import annotations

import json
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

from conveyor.core.state import Stage
from conveyor.orchestrator.snapshot import JobRole, JobView, ToolFailure

DATA = Path(__file__).parents[2] / "data" / "orchestrator" / "jobs.json"


@cache
def records() -> dict[str, dict[str, Any]]:
    """Every recorded job.json by name."""
    loaded: dict[str, dict[str, Any]] = json.loads(DATA.read_text())
    return loaded


def recorded_job(name: str, *, alive: bool) -> JobView:
    """The named job.json as a JobView; liveness comes from the pid check, so it is given."""
    record = records()[name]
    session = record["sessions"][-1] if record["sessions"] else None
    failure = session and session["last_tool_failure"]
    return JobView(
        issue=record["issue"],
        stage=Stage(record["stage"]),
        role=JobRole(record["role"]),
        started_at=datetime.fromisoformat(record["started_at"]),
        pid=record["pid"],
        alive=alive,
        heartbeat=datetime.fromisoformat(record["heartbeat"]),
        finished=record["finished"] is not None,
        session=session["key"] if session else None,
        context_tokens=session["last_context"] if session else None,
        token_budget=session["budget"] if session else None,
        tool_failure=ToolFailure(**failure) if failure else None,
        silence_minutes=record.get("silence_minutes"),
    )
