"""A seeded kill schedule: which jobs die by SIGKILL and when, and when the loop itself does.

Jobs are named by the order they start in (the n-th `started` line of the run), so the
same seed hits the same share of every stage however fast the machine is; each dies a
random delay after it started. The orchestrator dies at random moments of the run.
"""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class JobKill:
    """SIGKILL the `nth` job to start in the run, `delay` seconds after it started."""

    nth: int
    delay: float


@dataclass(frozen=True, slots=True)
class LoopKill:
    """SIGKILL the orchestrator `at` seconds into the run (it is started again at once)."""

    at: float


@dataclass(frozen=True, slots=True)
class Schedule:
    """Every kill of one run, each list in the order it comes."""

    jobs: tuple[JobKill, ...]
    loops: tuple[LoopKill, ...]


def kill_schedule(
    seed: int,
    *,
    job_kills: int,
    loop_kills: int,
    jobs_expected: int,
    horizon: float,
    longest_delay: float = 1.5,
) -> Schedule:
    """`job_kills` of the first `jobs_expected` jobs, and `loop_kills` in [1, horizon] s."""
    rng = random.Random(seed)
    nths = sorted(rng.sample(range(1, jobs_expected + 1), min(job_kills, jobs_expected)))
    jobs = tuple(JobKill(n, round(rng.uniform(0.0, longest_delay), 3)) for n in nths)
    moments = sorted(round(rng.uniform(1.0, horizon), 3) for _ in range(loop_kills))
    loops = tuple(LoopKill(at) for at in moments)
    return Schedule(jobs, loops)
