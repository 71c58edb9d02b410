"""Benchmark: Conveyor's overhead per scripted session beyond importing the MCP SDK.

One session = the runner spawning the scripted agent, which starts `conveyor mcp`, submits a
reply through it, and ends; the runner reads reply.json. The baseline is a bare interpreter
importing `mcp.server.mcpserver`. Overhead = p50(session) - p50(baseline).
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from conveyor.agents.launch import scripted_executable
from conveyor.agents.runner import run_session
from conveyor.core.session import SessionIdentity, SessionRole, SessionSpec, SessionStatus

RUNS = int(os.environ.get("BENCH_RUNS", "20"))
TIME_BUDGET_S = 36.0
GOAL_OVERHEAD_MS = 300.0
REPLY: dict[str, object] = {
    "verdict": "pass",
    "reason": "ok",
    "missing": [],
    "no_tests_reason_holds": None,
    "summary": "s",
}


def children_cpu_s() -> float:
    """CPU seconds used by waited-for child processes so far (less noisy than wall time)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def baseline_s() -> float:
    """Wall time of `python -c 'import mcp.server.mcpserver'`."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import mcp.server.mcpserver"], check=True)
    return time.perf_counter() - start


def session_s(root: Path, index: int, scenario: Path) -> float:
    """Wall time of one scripted session that replies through the MCP server."""
    spec = SessionSpec(
        role=SessionRole.READER,
        backend="claude",
        model="scripted",
        system_prompt="bench",
        task="bench",
        reply_model="accept",
        cwd=root,
        session_dir=root / "sessions" / f"s{index}",
        session_key=f"s{index}",
        identity=SessionIdentity(1, "accept", "accept", 1),
        executable=scripted_executable(),
        scenario=scenario,
        timeout_seconds=60,
        infra_retries=0,
    )
    start = time.perf_counter()
    result = run_session(spec, dict(os.environ))
    elapsed = time.perf_counter() - start
    if result.status is not SessionStatus.REPLIED:
        msg = f"session {index} ended {result.status}: {result.error}"
        raise SystemExit(msg)
    return elapsed


def main() -> None:
    """Alternate baseline and session runs (so load drifts hit both), then print figures."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        scenario = root / "scenario.json"
        scenario.write_text(
            json.dumps({"sessions": [{"turns": [{"actions": [{"reply": REPLY}]}]}]})
        )
        baselines: list[float] = []
        sessions: list[float] = []
        began = time.perf_counter()
        cpu: dict[str, list[float]] = {"baseline": [], "session": []}
        for index in range(RUNS):
            pair_began = time.perf_counter()
            cpu_began = children_cpu_s()
            baselines.append(baseline_s())
            cpu_mid = children_cpu_s()
            sessions.append(session_s(root, index, scenario))
            cpu["baseline"].append(cpu_mid - cpu_began)
            cpu["session"].append(children_cpu_s() - cpu_mid)
            pair = time.perf_counter() - pair_began
            if time.perf_counter() - began + pair > TIME_BUDGET_S:
                break  # a loaded machine: fewer runs rather than a blown time limit
    base_ms = statistics.median(baselines) * 1000
    session_ms = statistics.median(sessions) * 1000
    overhead_ms = session_ms - base_ms
    print(
        f"baseline (import mcp.server.mcpserver) p50: {base_ms:.0f} ms over {len(baselines)} runs"
    )
    print(f"scripted session p50: {session_ms:.0f} ms over {len(sessions)} runs")
    print(f"overhead p50: {overhead_ms:.0f} ms (goal <= {GOAL_OVERHEAD_MS:.0f} ms)")
    cpu_ms = {k: statistics.median(v) * 1000 for k, v in cpu.items()}
    cpu_overhead_ms = cpu_ms["session"] - cpu_ms["baseline"]
    print(f"CPU (all processes) p50: baseline {cpu_ms['baseline']:.0f} ms, ", end="")
    print(f"session {cpu_ms['session']:.0f} ms, overhead {cpu_overhead_ms:.0f} ms")
    figures = {
        "baseline_p50_ms": round(base_ms, 1),
        "session_p50_ms": round(session_ms, 1),
        "overhead_p50_ms": round(overhead_ms, 1),
        "cpu_overhead_p50_ms": round(cpu_overhead_ms, 1),
        "runs": len(sessions),
    }
    goals = {"overhead_p50_ms": GOAL_OVERHEAD_MS}
    met = overhead_ms <= GOAL_OVERHEAD_MS
    print(json.dumps({"bench": "sessions", "figures": figures, "goals": goals, "met": met}))


if __name__ == "__main__":
    main()
