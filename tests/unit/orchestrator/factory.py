"""Builders for orchestrator snapshots and configurations, with a fixed clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from conveyor.core.config import Config
from conveyor.core.state import Stage
from conveyor.orchestrator.decisions import Decisions
from conveyor.orchestrator.snapshot import IssueView, JobRole, JobView, Snapshot

NOW = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
LANE = "lane-a"


def config(**limits: Any) -> Config:
    """A valid configuration with the given limits (and money and intake, as `money=` and
    `intake=`) overridden."""
    money = limits.pop("money", {})
    intake = limits.pop("intake", {})
    return Config.model_validate(
        {
            "repo": "acme/widgets",
            "account": {"login": "conveyor-bot", "token_env": "CONVEYOR_TOKEN"},
            "allowed_users": ["alice", "bob"],
            "commands": {"test": "pytest -q"},
            "limits": limits,
            "money": money,
            "intake": intake,
        }
    )


def issue(
    number: int, stage: Stage = Stage.TRIAGE, *, age_minutes: int = 0, **kw: Any
) -> IssueView:
    """An open issue; a smaller number, or more `age_minutes`, makes it older."""
    created = NOW - timedelta(minutes=age_minutes + 1000 - number)
    return IssueView(number=number, created_at=created, stage=stage, **kw)


def job(issue_number: int, stage: Stage, *, alive: bool = True, **kw: Any) -> JobView:
    """A recorded job of an issue, started ten minutes before NOW, heartbeat now."""
    kw.setdefault("role", JobRole.READER)
    kw.setdefault("started_at", NOW - timedelta(minutes=10))
    kw.setdefault("heartbeat", NOW)
    return JobView(issue=issue_number, stage=stage, pid=4000 + issue_number, alive=alive, **kw)


def snapshot(*issues: IssueView, jobs: tuple[JobView, ...] = (), **kw: Any) -> Snapshot:
    """A snapshot of our lane with these issues and jobs."""
    return Snapshot(lane=LANE, issues=issues, jobs=jobs, **kw)


def started(decisions: Decisions) -> list[int]:
    """The issue numbers started, in order."""
    return [start.issue for start in decisions.starts]


def reasons(decisions: Decisions) -> dict[int, str]:
    """Each held issue's reason."""
    return {hold.issue: hold.reason for hold in decisions.holds}
