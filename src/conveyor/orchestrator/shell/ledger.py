"""The ledger as the orchestrator reads it: the job's `ledger.sqlite` plus the scheduler's figures.

The jobs write the ledger (`conveyor.job.ledger`, below the orchestrator in
the layers); this module adds `figures()`, which returns the snapshot's
`Ledger`, and re-exports the rest so readers have one import.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from conveyor.job import ledger as _job_ledger
from conveyor.job.ledger import (
    GROUPS,
    LEDGER_FILE,
    CostLine,
    GroupBy,
    LedgerRow,
    day_start,
    save_job_sessions,
    session_rows,
)
from conveyor.orchestrator.snapshot import Ledger

__all__ = [
    "GROUPS",
    "LEDGER_FILE",
    "CostLine",
    "GroupBy",
    "LedgerDb",
    "LedgerRow",
    "day_start",
    "save_job_sessions",
    "session_rows",
]


class LedgerDb(_job_ledger.LedgerDb):
    """The ledger file, with what the scheduler reads from it."""

    def __enter__(self) -> LedgerDb:
        return self

    def figures(self, now: datetime) -> Ledger:
        """What the scheduler reads: the last hour's launch charges and today's money."""
        today = self.spent_today(now)
        return Ledger(
            charges_last_hour=self.charges_since(now - timedelta(hours=1)),
            spent_today=today.cost_usd,
            unknown_cost_sessions=today.unknown,
        )
