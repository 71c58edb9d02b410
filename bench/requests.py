"""Benchmark: forge requests for two clean issues taken to merged, one after the other, in one
repository (issue 32).

The first issue pays the repository's one-time costs (the repository read, the labels the
pipeline creates); the second is what a user sees per issue: `forge_requests_steady`, the
figure the goal applies to. Both are counted by job, by route and between jobs from the
embedded forge's request log (`GET /_conveyor/requests`), as `bench/pipeline.py` counts its
one issue. The test command runs the sample's tests with no sleep and there is no bare
replay: this bench counts requests, `bench/pipeline.py` measures time.

Issue 32 took a clean issue from 224 requests to 63, and 59 for a repository's second issue,
which pays no repository read or label create (the job's forge view, `forge/job_view.py`:
one GraphQL read of the issue, its comments and its PR's feedback, answers shared for ten
minutes, a draft PR's title, body and ready mark in one request).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

STARTED = time.perf_counter()  # before Conveyor's imports: the 40 s limit counts them too
sys.path.insert(0, str(Path(__file__).resolve().parent))

import pipeline  # noqa: E402  (bench/pipeline.py: the clean issue's scenario and counting)

from conveyor.emulator.app.server import ForgeServer  # noqa: E402
from conveyor.testing.world import World  # noqa: E402

GOALS = {"forge_requests_steady": 60.0, "bench_total_s": 40.0}
SECOND_TAG = "bench2"


def second_scenario() -> list[dict[str, Any]]:
    """The clean issue's sessions for a second issue: another module and function name, so
    its spec's new file and failing test are new on a main that has the first's."""
    text = json.dumps(pipeline.scenario()).replace("total", "grand_total")
    return [entry | {"tag": SECOND_TAG} for entry in json.loads(text)]


def counted(world: World, number: int, log: list[dict[str, Any]]) -> dict[str, Any]:
    """One issue's requests: in all, by route, by job and between jobs."""
    by_route: dict[str, int] = {}
    for row in log:
        route = row["route"] = pipeline.REPO_PATH.sub("/repos/O/R", str(row["route"]))
        by_route[route] = by_route.get(route, 0) + 1
    jobs, _ = pipeline.job_times(world, number, [], log)
    return {
        "forge_requests": len(log),
        "by_job": {job["stage"]: job["forge_requests"] for job in jobs},
        "between_jobs": len(log) - sum(job["forge_requests"] for job in jobs),
        "by_route": dict(sorted(by_route.items(), key=lambda kv: -kv[1])),
        "jobs": [{"stage": job["stage"], "routes": job["forge_routes"]} for job in jobs],
    }


def measure(root: Path) -> dict[str, Any]:
    """Drive two clean issues in one repository; return each one's counts."""
    with ForgeServer(root / "forge") as server:
        config = {
            "commands": {"test": f"{sys.executable} -m pytest", "timeout_seconds": 120},
            "limits": {"claim_wait_seconds": [0, 0], "ci_poll_seconds": 0.2},
        }
        world = World.create(server, root / "world", config=config)
        world.write_scenario([*pipeline.scenario(), *second_scenario()])
        issues = [
            world.open_issue(f"Add a stock total [{pipeline.TAG}]", "Sum every item's quantity."),
            world.open_issue(f"Add a grand total [{SECOND_TAG}]", "Sum every item's quantity."),
        ]
        figures = []
        for issue in issues:
            _, log = pipeline.run_pipeline(world, server, issue.number)
            figures.append(counted(world, issue.number, log))
    first, steady = figures
    return {
        "forge_requests_first": first["forge_requests"],
        "forge_requests_steady": steady["forge_requests"],
        "first": first,
        "steady": steady,
    }


def main() -> None:
    """Measure, print each issue's requests by job, then the JSON line."""
    root = Path(tempfile.mkdtemp(prefix="conveyor-bench-requests-"))
    os.environ["CONVEYOR_HOME"] = str(root / "home")
    try:
        figures = measure(root)
    except (RuntimeError, subprocess.SubprocessError, OSError) as exc:
        print(f"the requests bench failed: {exc}", file=sys.stderr)
        figures = {"error": str(exc).splitlines()[0]}
    finally:
        shutil.rmtree(root, ignore_errors=True)
    total = time.perf_counter() - STARTED
    figures["bench_total_s"] = round(total, 2)
    if "error" in figures:
        print(json.dumps({"bench": "requests", "figures": figures, "goals": GOALS, "met": False}))
        return
    for name in ("first", "steady"):
        issue = figures[name]
        jobs = ", ".join(f"{stage} {count}" for stage, count in issue["by_job"].items())
        print(
            f"{name:>6} issue: {issue['forge_requests']} ({jobs}, between jobs "
            f"{issue['between_jobs']})"
        )
    met = (
        figures["forge_requests_steady"] <= GOALS["forge_requests_steady"]
        and total < GOALS["bench_total_s"]
    )
    print(json.dumps({"bench": "requests", "figures": figures, "goals": GOALS, "met": met}))


if __name__ == "__main__":
    main()
