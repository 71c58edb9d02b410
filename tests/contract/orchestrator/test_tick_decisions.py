"""The tick in-process against the embedded forge, with a recording executor: what it decides."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from conveyor.cli.config_load import load_config
from conveyor.core.state import Stage
from conveyor.core.stops import StopCode
from conveyor.emulator.app.server import ForgeServer
from conveyor.job.jobfile import JobRecord
from conveyor.ops.forge.context import OpContext
from conveyor.ops.forge.stop import stop
from conveyor.orchestrator.shell.executor import JobHandle
from conveyor.orchestrator.shell.snapshot_store import CACHE_FILE, SnapshotStore
from conveyor.orchestrator.shell.tick import Orchestrator, tick
from conveyor.orchestrator.shell.tick_files import LOG_FILE, WATCHDOG_FILE, OrchestratorLog
from conveyor.testing.world import ACCOUNT, World

LANE = "lane-a"


@dataclass
class RecordingExecutor:
    """Starts nothing: remembers each start; a job runs until the test ends it."""

    starts: list[tuple[int, Stage, bool]] = field(default_factory=list)
    running: set[int] = field(default_factory=set)
    terminated: list[int] = field(default_factory=list)

    def start(
        self,
        issue: int,
        stage: Stage,
        now: datetime,
        *,
        resume: bool = False,
        stack_on: int | None = None,
    ) -> JobHandle:
        """Record the start; the job's pid is fake and counts as running."""
        pid = 900_000 + len(self.starts)
        self.starts.append((issue, stage, resume))
        self.running.add(pid)
        return JobHandle(issue, stage, pid, None, now)

    def alive(self, handle: JobHandle) -> bool:
        """Whether the test has not ended the job yet."""
        return handle.pid in self.running

    def terminate(self, handle: JobHandle) -> None:
        """Record the SIGTERM."""
        self.terminated.append(handle.pid)


@pytest.fixture
def world(forge_server: ForgeServer, tmp_path: Path) -> World:
    """A fresh repository on the session's forge."""
    return World.create(forge_server, tmp_path / "world", config={"commands": {"test": "true"}})


def _orchestrator(world: World, executor: RecordingExecutor) -> Orchestrator:
    config = load_config(world.config_path)
    home = world.repo_home
    home.mkdir(parents=True, exist_ok=True)
    store = SnapshotStore(home / CACHE_FILE, ACCOUNT)
    return Orchestrator(
        config, home, LANE, world.forge_as(ACCOUNT), store, executor, {},
        OrchestratorLog(home / LOG_FILE),
    )  # fmt: skip


def _dead_job(world: World, issue: int, stage: str) -> None:
    """A job.json whose process is gone and never finished (as after kill -9)."""
    started = datetime.now(UTC) - timedelta(minutes=1)
    record = JobRecord(
        issue=issue, stage=stage, role="reader", lane=LANE, job_id=f"issue-{issue}-{stage}-x",
        pid=2_000_000_000, process_start=1, started_at=started, heartbeat=started,
    )  # fmt: skip
    folder = world.repo_home / "jobs" / record.job_id
    folder.mkdir(parents=True)
    (folder / "job.json").write_text(record.model_dump_json())


def test_a_trusted_issue_gets_one_triage_job_while_it_runs(world: World) -> None:
    """A start, then no second start for the issue while the job (no job.json yet) runs."""
    executor = RecordingExecutor()
    orc = _orchestrator(world, executor)
    number = world.open_issue("Add a total", "Sum it.").number
    first = tick(orc, datetime.now(UTC))
    assert executor.starts == [(number, Stage.TRIAGE, False)]
    assert first.live == 1
    tick(orc, datetime.now(UTC))
    assert executor.starts == [(number, Stage.TRIAGE, False)]
    executor.running.clear()
    tick(orc, datetime.now(UTC))
    assert len(executor.starts) == 2


def test_cooling_down_starts_nothing_and_says_so_in_the_status(world: World) -> None:
    """With the cool-down on, a waiting issue stays queued and status.json says why."""
    executor = RecordingExecutor()
    orc = _orchestrator(world, executor)
    number = world.open_issue("Add a total", "Sum it.").number
    orc.cooling_down = True
    tick(orc, datetime.now(UTC))
    assert executor.starts == []
    status = json.loads((world.repo_home / "status.json").read_text())
    assert status["cooling_down"] is True
    assert [p["kind"] for p in status["pauses"]] == ["cool-down"]
    assert status["holds"][0]["issue"] == number


def test_a_job_gone_without_finishing_is_resumed_and_counted(world: World) -> None:
    """WD-5: a dead unfinished job.json at the issue's stage → a `--resume` start, resume 1."""
    executor = RecordingExecutor()
    orc = _orchestrator(world, executor)
    number = world.open_issue("Add a total", "Sum it.").number
    _dead_job(world, number, "triage")
    tick(orc, datetime.now(UTC))
    assert executor.starts == [(number, Stage.TRIAGE, True)]
    memory = json.loads((world.repo_home / WATCHDOG_FILE).read_text())
    assert memory["resumes"] == {str(number): 1}


def test_past_max_resumes_the_issue_is_stopped_with_the_job_control(world: World) -> None:
    """WD-6: with the resumes used up, the issue gets `agent:stopped-job` and no new job."""
    executor = RecordingExecutor()
    orc = _orchestrator(world, executor)
    number = world.open_issue("Add a total", "Sum it.").number
    _dead_job(world, number, "triage")
    memory = {"version": 1, "resumes": {str(number): 2}, "stops": [], "steered": []}
    (world.repo_home / WATCHDOG_FILE).write_text(json.dumps(memory | {"escalated": []}))
    tick(orc, datetime.now(UTC))
    assert executor.starts == []
    assert "agent:stopped-job" in world.labels(number)


def test_an_unexpected_stop_runs_the_escalation_command_once(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """ESC-2: an error stop escalates through the operator's command, once while its label stays."""
    out = tmp_path / "escalated.txt"
    command = f'echo "$CONVEYOR_ESCALATION_ISSUE $CONVEYOR_ESCALATION_CONTROL" >> {out}'
    world = World.create(
        forge_server,
        tmp_path / "world",
        config={"commands": {"test": "true"}, "escalation_command": command},
    )
    executor = RecordingExecutor()
    orc = _orchestrator(world, executor)
    number = world.open_issue("Add a total", "Sum it.").number
    ops = OpContext(world.forge_as(ACCOUNT), orc.config, run_id="test")
    stop(ops, number, StopCode.ERROR, "a step failed", now=datetime.now(UTC))
    tick(orc, datetime.now(UTC))
    tick(orc, datetime.now(UTC))
    assert out.read_text().splitlines() == [f"{number} error"]
    assert executor.starts == []
