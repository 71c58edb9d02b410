"""Which op carries out each effect: one table keyed by the effect's type (one hop to the world).

The table is the union of the groups' rows: each group of effects (`job/effects/<group>.py`)
holds its ops and the rows that hand each op only the parts of the job it needs
(`conveyor.job.effects.parts`). `Dispatch.on` is type-checked per row (the op takes
exactly that effect); that every effect has exactly one row is pinned by
`tests/unit/job/test_dispatch.py`. The session launch is the job's own
(`job/effects/launch.py`): it runs the agent under the job's hub, job file and signals,
and posts the handoff it kept.
"""

from __future__ import annotations

from collections.abc import Callable

from conveyor.job.effects import branch, checks, launch, merge, wiki, writes
from conveyor.job.effects.table import Dispatch

# Each group's rows, in the order a stage meets them.
GROUPS: tuple[Callable[[Dispatch], None], ...] = (
    writes.rows,
    launch.rows,
    branch.rows,
    wiki.rows,
    checks.rows,
    merge.rows,
)


def build_dispatch() -> Dispatch:
    """The table of every effect the stage machines ask for."""
    table = Dispatch()
    for rows in GROUPS:
        rows(table)
    return table


DISPATCH = build_dispatch()
