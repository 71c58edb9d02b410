"""A seeded kill schedule: when to send SIGKILL, and to what.

The schedule is a pure value drawn from a seed; which job a kill hits is decided when it
comes, from the jobs alive then (`pick` chooses among them), so the same seed kills at
the same moments though timing decides the victims. A kill finds no job alive when it
comes hits the orchestrator instead.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

Target = Literal["job", "orchestrator"]


@dataclass(frozen=True, slots=True)
class Kill:
    """One SIGKILL `at` seconds into the run, at a job (`pick` chooses which) or the loop."""

    at: float
    target: Target
    pick: float


def kill_schedule(
    seed: int, *, kills: int, horizon: float, start: float = 1.0, orchestrator_share: float = 0.25
) -> tuple[Kill, ...]:
    """`kills` kills spread at random over [start, horizon] seconds, oldest first."""
    rng = random.Random(seed)
    drawn = [
        Kill(
            at=round(rng.uniform(start, horizon), 3),
            target="orchestrator" if rng.random() < orchestrator_share else "job",
            pick=rng.random(),
        )
        for _ in range(kills)
    ]
    return tuple(sorted(drawn, key=lambda kill: kill.at))
