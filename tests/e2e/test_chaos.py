"""kill -9 at any moment loses nothing and stops nothing falsely: a seeded chaos run.

Three issues (two of them editing one file, so one goes through sync) run under `conveyor
run` while jobs in every stage and the orchestrator itself die by SIGKILL, and the forge
answers 2% of requests 502 or 429. Only what must always hold is asserted, read from the
forge: every issue merged or at one documented stop, no false stop (no branch-changed),
none closed still labelled working, one PR each, no commit lost.
"""

from __future__ import annotations

from pathlib import Path

from conveyor.emulator.app.server import ForgeServer
from conveyor.testing.chaos.run import run_chaos
from conveyor.testing.chaos.schedule import kill_schedule
from conveyor.testing.chaos.verdict import judge

SEED = 12
ISSUES = 3


def test_a_seeded_kill_schedule_under_forge_faults_stops_nothing_falsely_and_loses_nothing(
    tmp_path: Path,
) -> None:
    """Six job kills spread over the run's jobs and one orchestrator kill, 2% forge faults:
    every invariant holds on the forge afterwards."""
    schedule = kill_schedule(
        SEED, job_kills=6, loop_kills=1, jobs_expected=9 * ISSUES, horizon=15.0
    )
    with ForgeServer(tmp_path / "forge") as server:
        run = run_chaos(
            server,
            tmp_path,
            count=ISSUES,
            schedule=schedule,
            fail_rate=0.02,
            deadline_s=240.0,
            seed=SEED,
        )
        verdict = judge(run)
        figures = verdict.figures(run)
    assert not run.timed_out, figures
    assert run.killed, figures
    assert verdict.broken() == [], figures
