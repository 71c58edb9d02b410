"""Generated snapshots for the orchestrator's property tests: one drawn integer per issue."""

from __future__ import annotations

from datetime import timedelta

from hypothesis import strategies as st

from conveyor.core.state import Stage
from conveyor.core.stops import StopCode
from conveyor.orchestrator.snapshot import (
    IssueView,
    JobRole,
    JobView,
    Lease,
    Ledger,
    Snapshot,
    ToolFailure,
)

from .factory import LANE, NOW, config

GLOBS = ("src/**", "src/app/*.py", "src/lib/x.py", "docs/*.md", "tests/**", "*.toml", "src/*.ts")


STAGES = [s for s in Stage if s is not Stage.PR_REVIEW]  # no issue is at a PR review
CROWDED = (Stage.TRIAGE, Stage.REVIEW, Stage.IMPLEMENT, Stage.FIX)


class Digits:
    """Reads small choices off one drawn integer: one draw per issue keeps generation fast."""

    def __init__(self, value: int) -> None:
        # Spread small draws (which hypothesis favours) over every choice.
        self.value = (value * 0x9E3779B97F4A7C15) % 2**64

    def take(self, base: int) -> int:
        """The next choice in range(base)."""
        self.value, digit = divmod(self.value, base)
        return digit


def decode(value: int, number: int, count: int) -> tuple[IssueView, JobView | None]:
    """One open issue (any stage, some paths, maybe an after mark, a lease, a stop) and its job."""
    d = Digits(value)
    # Half the issues crowd into four stages, so stage caps are reached often.
    pick = d.take(2 * len(STAGES))
    stage = STAGES[pick] if pick < len(STAGES) else CROWDED[pick % len(CROWDED)]
    where = GLOBS[d.take(len(GLOBS) + 1) :][:1]
    changed = GLOBS[d.take(len(GLOBS) * 2) :][:1]
    after = d.take(8 * count + 8)
    leases = (Lease(LANE, NOW), Lease("lane-b", NOW + timedelta(hours=1)))
    lease = leases[lease_pick] if (lease_pick := d.take(8)) < len(leases) else None
    item = IssueView(
        number=number,
        created_at=NOW - timedelta(minutes=d.take(50)),
        stage=stage,
        where=where,
        changed_paths=changed,
        after=after if 0 < after <= count + 2 else None,
        lease=lease,
        stopped=StopCode.CONFLICT if d.take(10) == 0 else None,
        waiting="asking" if d.take(12) == 0 else None,
    )
    if d.take(6) != 0:
        return item, None
    failure = ToolFailure("Bash", "exit 1", d.take(5))
    record = JobView(
        issue=number,
        stage=(stage, Stage.IMPLEMENT, Stage.REVIEW)[d.take(3)],
        role=JobRole.WRITER,
        started_at=NOW - timedelta(minutes=30),
        pid=100 + number,
        alive=d.take(2) == 0,
        heartbeat=NOW - timedelta(minutes=(1, 25)[d.take(2)]),
        finished=d.take(3) == 0,
        session="s-1",
        context_tokens=(10_000, 200_000)[d.take(2)],
        token_budget=150_000,
        tool_failure=failure,
    )
    return item, record


@st.composite
def snapshots(draw: st.DrawFn) -> Snapshot:
    """Up to 20 issues, some with a recorded job (alive or not), and a ledger."""
    values = draw(st.lists(st.integers(0, 2**48), max_size=20))
    pairs = [decode(value, n, len(values)) for n, value in enumerate(values, start=1)]
    return Snapshot(
        lane=LANE,
        issues=tuple(item for item, _ in pairs),
        jobs=tuple(record for _, record in pairs if record is not None),
        ledger=Ledger(charges_last_hour=draw(st.sampled_from([0, 100_000, 900_000]))),
    )


configs = st.builds(
    lambda jobs, readers, writers, per_hour: config(
        max_jobs=jobs,
        readers_per_stage=readers,
        writers_per_stage=writers,
        tokens_per_hour=per_hour,
    ),
    st.integers(1, 8),
    st.integers(1, 2),
    st.integers(1, 2),
    st.sampled_from([0, 400_000, 1_000_000]),
)
