"""Benchmark: kill -9 at any moment under forge faults, over a longer schedule than the test's.

Three issues (two editing one file, so one goes through sync) under `conveyor run`; a seeded
schedule SIGKILLs a third of the jobs the run is expected to start (the test: a fifth), each at
a random moment of its run, and the orchestrator twice; the forge answers 3% of requests
502 or 429 (the test: 2%). The figures are read from the forge afterwards; the run is cut
at the time limit, and what it left unfinished then counts against it. "met" when every
invariant holds (every issue merged or at one documented stop, no false stop, none closed
still working, no duplicate PR, no lost commit) and the whole bench took under 40 s.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

STARTED = time.perf_counter()  # before Conveyor's imports: the 40 s limit counts them too

from conveyor.emulator.app.server import ForgeServer  # noqa: E402
from conveyor.testing.chaos.run import run_chaos  # noqa: E402
from conveyor.testing.chaos.schedule import kill_schedule  # noqa: E402
from conveyor.testing.chaos.verdict import judge  # noqa: E402

TIME_LIMIT_S = 40.0
SEED = 2026
ISSUES = 3
JOBS_EXPECTED = 10 * ISSUES
FAIL_RATE = 0.03
SPARE_S = 7.0
GOALS = {
    "false_stops": 0,
    "false_branch_changed": 0,
    "closed_working": 0,
    "duplicate_prs": 0,
    "lost_commits": 0,
    "bench_total_s": TIME_LIMIT_S,
}


def main() -> None:
    """Run the schedule, print each kill and what it hit, then the JSON line."""
    root = Path(tempfile.mkdtemp(prefix="conveyor-bench-chaos-"))
    schedule = kill_schedule(
        SEED, job_kills=JOBS_EXPECTED // 3, loop_kills=2, jobs_expected=JOBS_EXPECTED, horizon=20.0
    )
    try:
        with ForgeServer(root / "forge") as server:
            # The run may not outlast the limit (setting up and reading the forge afterwards
            # take a few seconds): whatever is unfinished then counts against it.
            deadline = max(5.0, TIME_LIMIT_S - (time.perf_counter() - STARTED) - SPARE_S)
            run = run_chaos(
                server,
                root,
                count=ISSUES,
                schedule=schedule,
                fail_rate=FAIL_RATE,
                deadline_s=deadline,
                seed=SEED,
            )
            verdict = judge(run)
            figures = verdict.figures(run)
            broken = verdict.broken()
    finally:
        shutil.rmtree(root, ignore_errors=True)
    for kill in run.killed:
        what = f"#{kill.issue} {kill.stage}" if kill.issue is not None else "the orchestrator"
        print(f"{kill.at:7.2f} s  SIGKILL {what} (pid {kill.pid})")
    for line in broken:
        print(f"broken: {line}", file=sys.stderr)
    total = round(time.perf_counter() - STARTED, 2)
    figures |= {"fail_rate": FAIL_RATE, "seed": SEED, "bench_total_s": total}
    met = not broken and not run.timed_out and total < TIME_LIMIT_S
    print(json.dumps({"bench": "chaos", "figures": figures, "goals": GOALS, "met": met}))


if __name__ == "__main__":
    main()
