"""Two `conveyor worker`s on a real Temporal dev server take five issues to merged; one is
killed by SIGKILL mid-job and its job finishes on the other, with nothing lost or doubled."""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path

from conveyor.core.state import Stage
from conveyor.orchestrator.shell.status_file import STATUS_FILE, load_status
from conveyor.testing.temporal_server import TemporalDevServer
from conveyor.testing.world import World
from tests.e2e.back.merge_helpers import clean_back_half
from tests.e2e.helpers import triage
from tests.e2e.orchestrator.chain import (
    assert_invariants,
    assert_no_overlap,
    assert_no_repeated_signed_comment,
    assert_one_state_comment,
    entries,
    implement_entry,
    job_spans,
    log_lines,
    spec_entry,
    wait_for,
)
from tests.e2e.orchestrator.test_three import pr_heads
from tests.e2e.temporal.conftest import LIMITS
from tests.e2e.temporal.pool import (
    jobs_of,
    run_argv,
    start_worker,
    worker_config,
    worker_home,
)

TAGS = ("p0", "p1", "p3", "p4")
PAUSED = "p2"
HEARTBEAT_S = 8.0  # well above the orphan's save on SIGTERM, even on a loaded machine


def _worker_of(world: World, number: int) -> str | None:
    """The worker status.json names for the issue's running job, if any."""
    status = load_status(world.repo_home / STATUS_FILE) or {}
    jobs = [job for job in status.get("jobs", []) if job.get("issue") == number]
    return str(jobs[0]["worker"]) if jobs and jobs[0].get("worker") else None


def _scenario(world: World, release: Path) -> None:
    paused = [
        triage(PAUSED),
        spec_entry(PAUSED),
        implement_entry(PAUSED, pause=release, commit_first=True),
    ]
    back = [entry for tag in (*TAGS, PAUSED) for entry in clean_back_half(tag)]
    world.write_scenario([*paused, *entries(TAGS), *back])


def test_a_killed_workers_job_finishes_on_the_other_worker_and_five_issues_merge(
    forge_server_world: World, temporal_server: TemporalDevServer, tmp_path: Path
) -> None:
    """kill -9 of the worker running a paused implement: the job saves its issue, Temporal
    retries the activity on the other worker once the heartbeat times out, and every issue
    merges with one PR, one state comment, no post made twice and no two jobs of an issue at once;
    while the job runs, `conveyor status` names the remote worker it runs on."""
    world = forge_server_world
    release = tmp_path / "release"
    _scenario(world, release)
    numbers = {
        tag: world.open_issue(f"Add {tag} [{tag}]", f"{tag}() returns 1.").number
        for tag in (*TAGS, PAUSED)
    }
    paused = numbers[PAUSED]
    names = ("a", "b")
    homes = {name: worker_home(world, tmp_path, name) for name in names}
    workers = {
        name: start_worker(
            world,
            temporal_server.address,
            worker_config(world, tmp_path, name, LIMITS),
            tmp_path / f"worker-{name}.log",
        )
        for name in names
    }
    identities = {name: worker.identity() for name, worker in workers.items()}
    run = world.start(*run_argv(temporal_server.address, HEARTBEAT_S))
    try:
        wait_for("the implementer to pause", Path(f"{release}.started").exists, timeout=120)
        killed = next(n for n in names if jobs_of(homes[n], paused, "implement"))
        other = next(n for n in names if n != killed)
        wait_for(
            "status.json to show the remote job",
            lambda: _worker_of(world, paused) == identities[killed],
            timeout=30,
        )
        assert f"on worker {identities[killed]}" in world.run("status").stdout
        os.kill(workers[killed].process.pid, signal.SIGKILL)
        wait_for(
            "the orphaned job to save its issue",
            lambda: jobs_of(homes[killed], paused, "implement")[-1].finished is not None,
            timeout=60,
        )
        release.touch()
        out, err = run.communicate(timeout=240)
    finally:
        if run.poll() is None:
            run.kill()
        for worker in workers.values():
            worker.stop()
    assert run.returncode == 0, out[-3000:] + err[-3000:]
    assert "tick failed" not in out, out
    orphan = jobs_of(homes[killed], paused, "implement")[-1]
    assert orphan.finished is not None
    assert orphan.finished.outcome == "interrupted"
    assert orphan.lost_changes == []
    retried = jobs_of(homes[other], paused, "implement")
    assert [r.finished.outcome for r in retried if r.finished] == ["saved"]
    ended = [
        line
        for line in log_lines(world.repo_home)
        if line.startswith(f"job ended #{paused} implement")
    ]
    assert len(ended) == 1
    assert re.search(
        rf"on worker {re.escape(identities[other])} exit 0 \(attempt 2\): saved", ended[0]
    ), ended
    heads = pr_heads(world)
    for tag, number in numbers.items():
        state = world.state(number)
        assert state is not None
        assert state.stage is Stage.DONE, (number, state.stage, state.stopped)
        assert "agent:merged" in world.labels(number)
        assert heads.count(f"agent/issue-{number}") == 1, "one PR per issue"
        assert (
            world.base_file(f"inventory/{tag}.py")
            == f'"""{tag}."""\n\n\ndef {tag}() -> int:\n    """One."""\n    return 1\n'
        )
        assert_one_state_comment(world, number)
        assert_no_overlap(job_spans(homes.values(), number))
    assert_invariants(world, *numbers.values())
    assert_no_repeated_signed_comment(world, *numbers.values())
