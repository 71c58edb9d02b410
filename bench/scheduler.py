"""Benchmark: one scheduling pass over 100, 1,000 and 10,000 synthetic open issues."""

from __future__ import annotations

import json
import random
import time
from datetime import UTC, datetime, timedelta

from conveyor.core.config import Config
from conveyor.core.state import Stage
from conveyor.core.stops import StopCode
from conveyor.orchestrator.schedule import schedule
from conveyor.orchestrator.snapshot import (
    CiWait,
    IssueView,
    JobRole,
    JobView,
    Ledger,
    Snapshot,
)

NOW = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
SIZES = (100, 1_000, 10_000)
REPEATS = 15
GOAL_MS_AT_10000 = 20.0
GOAL_LINEAR_RATIO = 1.5
STAGES = [s for s in Stage if s is not Stage.DONE]
FOLDERS = ("src/app", "src/lib", "src/cli", "docs", "tests", "pkg/core", "pkg/io")


def config() -> Config:
    """A repository configuration with room for several jobs and an hourly token limit."""
    return Config.model_validate(
        {
            "repo": "bench/repo",
            "account": {"login": "bot", "token_env": "TOKEN"},
            "allowed_users": ["alice"],
            "commands": {"test": "true"},
            "limits": {"max_jobs": 8, "tokens_per_hour": 5_000_000},
        }
    )


def issue(rng: random.Random, number: int, count: int) -> IssueView:
    """One synthetic open issue: a stage, paths, sometimes an after mark or a CI wait."""
    stage = rng.choice(STAGES)
    where = tuple(f"{rng.choice(FOLDERS)}/**" for _ in range(rng.randint(0, 3)))
    after = rng.randint(1, count) if rng.random() < 0.1 else None
    ci = None
    if stage is Stage.CHECKS and rng.random() < 0.5:
        ci = CiWait("a" * 40, NOW - timedelta(seconds=rng.randint(0, 60)))
    stopped = StopCode.CONFLICT if rng.random() < 0.05 else None
    return IssueView(
        number=number,
        # Forge numbers are handed out in creation order, so age follows the number.
        created_at=NOW - timedelta(minutes=20 * (count - number) + 1),
        stage=stage,
        where=where,
        changed_paths=(f"{rng.choice(FOLDERS)}/x.py",) if rng.random() < 0.3 else (),
        after=after,
        ci_wait=ci,
        stopped=stopped,
    )


def snapshot(count: int) -> Snapshot:
    """Synthetic open issues with four live jobs among them."""
    rng = random.Random(count)
    issues = tuple(issue(rng, number, count) for number in range(1, count + 1))
    jobs = tuple(
        JobView(
            issue=i.number,
            stage=i.stage,
            role=JobRole.WRITER,
            started_at=NOW - timedelta(minutes=5),
            pid=1000 + i.number,
            alive=True,
            heartbeat=NOW,
        )
        for i in issues[:4]
    )
    return Snapshot(lane="bench", issues=issues, jobs=jobs, ledger=Ledger(1_000_000, 3.5))


def best_ms(snap: Snapshot, conf: Config) -> tuple[float, float]:
    """The best CPU time and the best wall time of one scheduling pass, in milliseconds.

    CPU time (`time.process_time`, garbage collection included) is the figure
    judged: on a shared machine other processes inflate wall time, not it. The
    best of several runs is the one least disturbed.
    """
    cpu, wall = [], []
    for _ in range(REPEATS):
        start_cpu, start_wall = time.process_time(), time.perf_counter()
        schedule(snap, conf, NOW)
        cpu.append((time.process_time() - start_cpu) * 1000)
        wall.append((time.perf_counter() - start_wall) * 1000)
    return min(cpu), min(wall)


def main() -> None:
    """Run the passes, print the times, end with the one JSON line."""
    conf = config()
    figures: dict[str, float] = {}
    for count in SIZES:
        snap = snapshot(count)
        decisions = schedule(snap, conf, NOW)
        cpu, wall = best_ms(snap, conf)
        figures[f"ms_{count}"] = round(cpu, 3)
        figures[f"wall_ms_{count}"] = round(wall, 3)
        print(
            f"{count:>6} issues: {cpu:8.3f} ms CPU, {wall:8.3f} ms wall per pass "
            f"({len(decisions.starts)} starts, {len(decisions.holds)} holds)"
        )
    ratio = (figures["ms_10000"] / 10_000) / (figures["ms_1000"] / 1_000)
    figures["per_issue_ratio_10000_vs_1000"] = round(ratio, 3)
    print(f"per-issue time at 10,000 vs 1,000: {ratio:.2f}x")
    goals = {"ms_10000": GOAL_MS_AT_10000, "per_issue_ratio_10000_vs_1000": GOAL_LINEAR_RATIO}
    met = figures["ms_10000"] <= GOAL_MS_AT_10000 and ratio <= GOAL_LINEAR_RATIO
    print(json.dumps({"bench": "scheduler", "figures": figures, "goals": goals, "met": met}))


if __name__ == "__main__":
    main()
