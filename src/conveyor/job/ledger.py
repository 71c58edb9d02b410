"""`ledger.sqlite`: one row per agent session (tokens, launch charge, cost); jobs write it.

Jobs write the rows from the session records of their `job.json`; the
orchestrator and `conveyor cost` only read. A row is keyed by job and session
key, so writing it again (at launch, then at the end; or after a crash)
replaces it. A cost the agent CLI did not report is NULL, never 0: sums count
it as 0 and report how many were unknown.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from conveyor.job.jobfile import JobRecord

LEDGER_FILE = "ledger.sqlite"
GroupBy = Literal["issue", "stage", "day", "model"]
GROUPS: dict[GroupBy, str] = {
    "issue": "CAST(issue AS TEXT)",
    "stage": "stage",
    "day": "strftime('%Y-%m-%d', started_at, 'unixepoch')",
    "model": "model",
}
_DDL = """
CREATE TABLE IF NOT EXISTS sessions (
    job_id TEXT NOT NULL,
    session_key TEXT NOT NULL,
    issue INTEGER NOT NULL,
    stage TEXT NOT NULL,
    role TEXT NOT NULL,
    backend TEXT NOT NULL,
    model TEXT NOT NULL,
    launch_charge INTEGER NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cache_read_tokens INTEGER NOT NULL,
    cache_write_tokens INTEGER NOT NULL,
    cost_usd REAL,
    started_at REAL NOT NULL,
    ended_at REAL NOT NULL,
    PRIMARY KEY (job_id, session_key)
);
CREATE INDEX IF NOT EXISTS sessions_started ON sessions (started_at);
"""
_SUMS = (
    "COUNT(*), COALESCE(SUM(launch_charge), 0), COALESCE(SUM(input_tokens), 0), "
    "COALESCE(SUM(output_tokens), 0), COALESCE(SUM(cache_read_tokens), 0), "
    "COALESCE(SUM(cache_write_tokens), 0), COALESCE(SUM(cost_usd), 0.0), "
    "COALESCE(SUM(cost_usd IS NULL), 0)"
)


@dataclass(frozen=True, slots=True)
class LedgerRow:
    """One session: who ran it for which issue and stage, what it was charged and used."""

    job_id: str
    session_key: str
    issue: int
    stage: str
    role: str
    backend: str
    model: str
    launch_charge: int
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    cost_usd: float | None
    started_at: datetime
    ended_at: datetime


@dataclass(frozen=True, slots=True)
class CostLine:
    """Sums over sessions; `cost_usd` counts unknown costs as 0 and `unknown` counts them."""

    key: str
    sessions: int
    launch_charge: int
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    cost_usd: float
    unknown: int

    @property
    def tokens(self) -> int:
        """All tokens used, every kind together."""
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_read_tokens
            + self.cache_write_tokens
        )


def _epoch(moment: datetime) -> float:
    if moment.tzinfo is None:
        msg = f"ledger times must carry a time zone, got {moment.isoformat()}"
        raise ValueError(msg)
    return moment.timestamp()


def day_start(now: datetime) -> datetime:
    """Midnight UTC of `now`'s day: where "today" begins for the money budget."""
    moment = now.astimezone(UTC)
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)


def session_rows(record: JobRecord, ended_at: datetime | None = None) -> list[LedgerRow]:
    """The ledger rows of a job.json: one per session, charged its recorded budget.

    A row's end is `ended_at`, else the job's finish, else its last heartbeat.
    """
    if ended_at is None:
        ended_at = record.finished.at if record.finished is not None else record.heartbeat
    return [
        LedgerRow(
            job_id=record.job_id,
            session_key=session.key,
            issue=record.issue,
            stage=record.stage,
            role=record.role,
            backend=session.backend,
            model=session.model,
            launch_charge=session.budget,
            input_tokens=session.usage.input,
            output_tokens=session.usage.output,
            cache_read_tokens=session.usage.cache_read,
            cache_write_tokens=session.usage.cache_write,
            cost_usd=session.cost_usd,
            started_at=record.started_at,
            ended_at=ended_at,
        )
        for session in record.sessions
    ]


class LedgerDb:
    """The ledger file (WAL, busy timeout 5 s); `readonly` never creates it."""

    def __init__(self, path: Path, *, readonly: bool = False) -> None:
        self.path = path
        self._conn: sqlite3.Connection | None = None
        if readonly and not path.exists():
            return
        if readonly:
            self._conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5.0)
            if not self._has_table():
                # A job has just created the file and not yet its table: nothing spent yet.
                self.close()
                return
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(path, timeout=5.0)
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.executescript(_DDL)
        self._conn.execute("PRAGMA busy_timeout=5000")

    def _has_table(self) -> bool:
        assert self._conn is not None
        found = self._conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sessions'"
        ).fetchone()
        return found is not None

    def close(self) -> None:
        """Close the connection."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> LedgerDb:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def append(self, rows: list[LedgerRow]) -> None:
        """Write rows, replacing any with the same job and session key."""
        if self._conn is None:
            msg = f"{self.path}: the ledger was opened read-only and does not exist"
            raise RuntimeError(msg)
        values = [
            (
                *(r.job_id, r.session_key, r.issue, r.stage, r.role, r.backend, r.model),
                *(r.launch_charge, r.input_tokens, r.output_tokens),
                *(r.cache_read_tokens, r.cache_write_tokens, r.cost_usd),
                _epoch(r.started_at),
                _epoch(r.ended_at),
            )
            for r in rows
        ]
        with self._conn:
            self._conn.executemany(
                "INSERT OR REPLACE INTO sessions VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", values
            )

    def _sums(self, where: str, params: tuple[object, ...], group: str | None) -> list[CostLine]:
        if self._conn is None:
            return []
        key = group or "'all'"
        sql = f"SELECT {key}, {_SUMS} FROM sessions WHERE {where}"
        if group is not None:
            sql += f" GROUP BY {group} ORDER BY {group}"
        rows = self._conn.execute(sql, params).fetchall()
        return [
            CostLine(str(r[0]), r[1], r[2], r[3], r[4], r[5], r[6], float(r[7]), int(r[8]))
            for r in rows
            if r[1]
        ]

    def total_since(self, since: datetime) -> CostLine:
        """Every session started at or after `since`, summed."""
        found = self._sums("started_at >= ?", (_epoch(since),), None)
        return found[0] if found else CostLine("all", 0, 0, 0, 0, 0, 0, 0.0, 0)

    def spent_today(self, now: datetime) -> CostLine:
        """Sessions started since midnight UTC: money (unknown as 0) and tokens."""
        return self.total_since(day_start(now))

    def charges_since(self, since: datetime) -> int:
        """Launch charges of the sessions started at or after `since`."""
        return self.total_since(since).launch_charge

    def by(self, group: GroupBy, since: datetime) -> list[CostLine]:
        """Sums per issue, stage, UTC day or model of the sessions started since `since`."""
        return self._sums("started_at >= ?", (_epoch(since),), GROUPS[group])


def save_job_sessions(home: Path, record: JobRecord, ended_at: datetime | None = None) -> None:
    """Write a job's sessions to `<home>/ledger.sqlite` (what a job does as it ends)."""
    with LedgerDb(home / LEDGER_FILE) as ledger:
        ledger.append(session_rows(record, ended_at))
