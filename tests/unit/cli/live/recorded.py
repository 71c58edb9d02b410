"""The recorded repository home the live-view tests read (copied from tests/data/live)."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

from conveyor.job.jobfile import JOB_FILE, load_job_file
from conveyor.orchestrator.shell.executor import RecordedJob

DATA = Path(__file__).resolve().parents[3] / "data" / "live"
REPO_DIR = "acme__inventory"
NOW = datetime(2026, 11, 29, 12, 5, 10, tzinfo=UTC)
RUNNING_JOB = "issue-7-review-20261129T120100Z"


def copy_home(tmp_path: Path) -> Path:
    """A fresh copy of the recorded `$CONVEYOR_HOME`; returns the repository's folder in it."""
    home = tmp_path / "home"
    shutil.copytree(DATA, home)
    return home / REPO_DIR


def recorded_jobs(repo_home: Path) -> list[RecordedJob]:
    """The recorded job.json files; the review job of #7 counts as running."""
    jobs = []
    for path in sorted((repo_home / "jobs").glob(f"*/{JOB_FILE}")):
        record = load_job_file(path)
        jobs.append(RecordedJob(path.parent, record, alive=record.job_id == RUNNING_JOB))
    return jobs
