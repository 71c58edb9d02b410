"""A remote job outlives its orchestrator: a new one adopts it, and its cancel reaches the
worker as the job's SIGTERM save."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

from conveyor.core.state import Stage
from conveyor.testing.temporal_server import TemporalDevServer
from conveyor.testing.world import World
from tests.e2e.helpers import triage
from tests.e2e.orchestrator.chain import log_lines, spec_entry, wait_for
from tests.e2e.temporal.conftest import LIMITS
from tests.e2e.temporal.pool import jobs_of, run_argv, start_worker, worker_config, worker_home

EXIT_INTERRUPTED = 130


def test_a_restarted_orchestrator_adopts_the_remote_job_and_its_second_ctrl_c_cancels_it(
    forge_server_world: World, temporal_server: TemporalDevServer, tmp_path: Path
) -> None:
    """The orchestrator dies by SIGKILL mid-triage; the next one adopts the running workflow
    (no second job starts). Its second Ctrl-C cancels the workflow, which SIGTERMs the
    worker's job: it records an interrupted finish, the issue stays at triage with its lease
    cleared, the worker lives on, and the log names the job's outcome and worker."""
    world = forge_server_world
    release = tmp_path / "release"
    entry: dict[str, Any] = triage("calm")
    entry["turns"] = [
        {"actions": [{"run": f"touch {release}.started"}, {"pause_until": str(release)}]},
        *entry["turns"],
    ]
    world.write_scenario([entry, spec_entry("calm")])
    number = world.open_issue("Add calm [calm]", "calm() returns 1.").number
    config = worker_config(world, tmp_path, "a", LIMITS)
    worker = start_worker(world, temporal_server.address, config, tmp_path / "worker-a.log")
    identity = worker.identity()
    first = world.start(*run_argv(temporal_server.address, heartbeat=10))
    wait_for("triage to pause", Path(f"{release}.started").exists, timeout=120)
    os.killpg(first.pid, signal.SIGKILL)
    first.communicate(timeout=30)
    run = world.start(*run_argv(temporal_server.address, heartbeat=10))
    try:
        wait_for(
            "the new orchestrator to adopt the job",
            lambda: any(
                x.startswith(f"adopted #{number} triage") for x in log_lines(world.repo_home)
            ),
        )
        run.send_signal(signal.SIGINT)
        wait_for(
            "the cool-down", lambda: any("cooling down" in x for x in log_lines(world.repo_home))
        )
        run.send_signal(signal.SIGINT)
        out, err = run.communicate(timeout=120)
        assert run.returncode == EXIT_INTERRUPTED, out + err
        assert worker.process.poll() is None, "the worker lives on"
    finally:
        if run.poll() is None:
            run.kill()
        worker.stop()
    jobs = jobs_of(worker_home(world, tmp_path, "a"), number, "triage")
    assert len(jobs) == 1
    assert jobs[0].finished is not None
    assert jobs[0].finished.outcome == "interrupted"
    state = world.state(number)
    assert state is not None
    assert state.stage is Stage.TRIAGE
    assert state.lease is None
    ended = [x for x in log_lines(world.repo_home) if x.startswith(f"job ended #{number} triage")]
    assert ended == [f"job ended #{number} triage on worker {identity} exit 1: interrupted"]
