"""What the forge's pipeline pages show of a Conveyor home, and the reader that gives it.

The embedded forge may not import the pipeline (`job/`, `orchestrator/`), so whoever builds
it (`forge serve --pipeline`, the demo, the test harness) hands it a `PipelineReader` built
from the pipeline's own modules (`orchestrator/shell/pipeline_files.py`): the forge holds no
file name, format or query of the pipeline's files, only these values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from conveyor.core.timeline import Timeline


@dataclass(frozen=True)
class IssueSpending:
    """One issue's sessions in the ledger: how many, their tokens, their cost (unknown as 0)
    and how many reported none."""

    issue: int
    sessions: int
    tokens: int
    cost_usd: float
    unknown: int


@dataclass(frozen=True)
class RepoReport:
    """One repository's files as the pipeline page shows them.

    `status` is its orchestrator's `status.json` (None with `problem` when unreadable),
    `spending` its ledger per issue (`spending_problem` when the ledger cannot be read),
    `recent` the issues with job folders, newest job first.
    """

    slug: str
    status: Mapping[str, Any] | None
    problem: str | None
    spending: tuple[IssueSpending, ...]
    spending_problem: str | None
    recent: tuple[int, ...]


class PipelineReader(Protocol):
    """A Conveyor home's files, read fresh on every call, read-only; nothing raises."""

    @property
    def home(self) -> Path:
        """The `$CONVEYOR_HOME` read (hidden from the forge's CI, named on the page)."""

    def repositories(self) -> tuple[RepoReport, ...]:
        """Every repository the home holds an orchestrator's status for, by folder name."""

    def timeline(self, slug: str, issue: int) -> Timeline:
        """Issue `issue` of repository `owner/name`'s bars (none when nothing ran)."""
