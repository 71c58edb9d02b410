"""`runs/issue-N/view.json`: the issue as the job that just ended left it.

A stage job keeps its issue and comments in memory and applies its own
writes to them (`forge.job_view.JobForge`). When it ends it writes what
pickup reads of the issue to this file, so `conveyor drive` can pick the
next job without asking the forge again. The next job reads the forge
itself before it claims, so a person's change in between is never missed:
it is only noticed one job later by the drive (which then reads the forge).
"""

from __future__ import annotations

import contextlib
import os
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from conveyor.core.pickup import IssueFacts
from conveyor.ops.forge.claim import issue_facts
from conveyor.ops.forge.context import OpContext, fetch_comments

VIEW_FILE = "view.json"


class IssueView(BaseModel):
    """The file's content: which job wrote it, when, and the issue's pickup facts."""

    model_config = ConfigDict(extra="forbid")

    job_id: str
    at: datetime
    facts: IssueFacts


def write_view(run_dir: Path, ops: OpContext, number: int, job_id: str, at: datetime) -> None:
    """Write the issue's facts as the job's forge view holds them (atomically)."""
    facts = issue_facts(ops.forge.get_issue(number), fetch_comments(ops, number), ops)
    target = run_dir / VIEW_FILE
    tmp = target.with_name(f"{VIEW_FILE}.{os.getpid()}.tmp")
    tmp.write_text(IssueView(job_id=job_id, at=at, facts=facts).model_dump_json(), encoding="utf-8")
    tmp.replace(target)


def read_view(run_dir: Path, since: datetime) -> IssueView | None:
    """The view written at or after `since`, or None (missing, older, unreadable)."""
    with contextlib.suppress(OSError, ValidationError, ValueError):
        view = IssueView.model_validate_json((run_dir / VIEW_FILE).read_text(encoding="utf-8"))
        if view.at >= since:
            return view
    return None
