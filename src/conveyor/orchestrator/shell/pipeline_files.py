"""A Conveyor home's files read for the forge's pipeline pages: the `PipelineReader` the CLI
hands the embedded forge (`core.pipeline_view`), built from the modules that write them.

`status.json` through `status_file.load_status`, the ledger through `job.ledger.LedgerDb`
(its sums per issue, as `conveyor cost --by issue` reads them), each repository's folder
through the job's layout and an issue's timeline through `job.timeline_read`. Every call
reads afresh and read-only; an unreadable file becomes a problem line, never an exception.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from conveyor.core.config import repo_dirname, repo_of_dirname
from conveyor.core.pipeline_view import IssueSpending, RepoReport
from conveyor.core.timeline import Timeline
from conveyor.job.ledger import LEDGER_FILE, LedgerDb
from conveyor.job.timeline_read import issues_with_jobs, read_timeline
from conveyor.orchestrator.shell.status_file import STATUS_FILE, load_status

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)  # the ledger's sums over every session


def _spending(path: Path) -> tuple[tuple[IssueSpending, ...], str | None]:
    try:
        with LedgerDb(path, readonly=True) as ledger:
            lines = ledger.by("issue", EPOCH)
    except sqlite3.Error as error:
        return (), f"{path}: {error}"
    found = [
        IssueSpending(int(line.key), line.sessions, line.tokens, line.cost_usd, line.unknown)
        for line in lines
        if line.key.isdigit()
    ]
    return tuple(sorted(found, key=lambda s: s.issue)), None


@dataclass(frozen=True)
class PipelineFiles:
    """The files under `home` (a `$CONVEYOR_HOME`, one `owner__name` folder a repository)."""

    home: Path

    def repositories(self) -> tuple[RepoReport, ...]:
        """Every repository folder holding a `status.json`, by name."""
        folders = sorted(p.parent for p in self.home.glob(f"*/{STATUS_FILE}"))
        return tuple(self._report(folder) for folder in folders)

    def _report(self, folder: Path) -> RepoReport:
        path = folder / STATUS_FILE
        try:
            status = load_status(path)
            problem = None if status is not None else f"{path}: gone"
        except (OSError, ValueError) as error:
            said = str(error)
            status, problem = None, said if said.startswith(str(path)) else f"{path}: {said}"
        named = status.get("repo") if status is not None else None
        slug = str(named or repo_of_dirname(folder.name))
        spending, spent_problem = _spending(folder / LEDGER_FILE)
        recent = tuple(issues_with_jobs(folder))
        return RepoReport(slug, status, problem, spending, spent_problem, recent)

    def timeline(self, slug: str, issue: int) -> Timeline:
        """Issue `issue`'s bars in repository `slug`'s folder."""
        return read_timeline(self.home / repo_dirname(slug), issue)
