"""A real `conveyor job` feeds the watchdog and the start gate through its job.json.

The triage session (the scripted agent) fails a tool or grows its context,
then waits for a file; meanwhile job.json shows the running session and an
in-process tick over it decides the steer or the SIGTERM. A session ending
on the provider's usage limit leaves its reset in job.json, and the next
tick holds every start until then.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from conveyor.cli.config_load import load_config
from conveyor.core.state import Stage
from conveyor.job.jobfile import RUNNING, Finished, JobRecord, SessionRecord, load_job_file
from conveyor.job.layout import load_lane
from conveyor.orchestrator.decisions import Steer, Terminate
from conveyor.orchestrator.shell.executor import JobHandle
from conveyor.orchestrator.shell.snapshot_store import CACHE_FILE, SnapshotStore
from conveyor.orchestrator.shell.tick import Orchestrator, tick
from conveyor.orchestrator.shell.tick_files import LOG_FILE, OrchestratorLog
from conveyor.testing.forked_run import Process
from conveyor.testing.world import ACCOUNT, World
from tests.e2e.helpers import triage
from tests.e2e.orchestrator.chain import wait_for

FAILING = "echo 'pytest: error: no tests ran' >&2; exit 4"


@dataclass
class RecordingExecutor:
    """Starts nothing: remembers each start and each SIGTERM asked for."""

    starts: list[tuple[int, Stage]] = field(default_factory=list)
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
        """Record the start; the fake job counts as ended at once."""
        self.starts.append((issue, stage))
        return JobHandle(issue, stage, 0, None, now)

    def alive(self, handle: JobHandle) -> bool:
        """Fake jobs never run."""
        return False

    def terminate(self, handle: JobHandle) -> None:
        """Record the SIGTERM."""
        self.terminated.append(handle.pid)


def _orchestrator(world: World, executor: RecordingExecutor) -> Orchestrator:
    home = world.repo_home
    home.mkdir(parents=True, exist_ok=True)
    lane = load_lane(home)  # the lane of this machine, which `world.job` claims with too
    return Orchestrator(
        load_config(world.config_path), home, lane, world.forge_as(ACCOUNT),
        SnapshotStore(home / CACHE_FILE, ACCOUNT), executor, {}, OrchestratorLog(home / LOG_FILE),
    )  # fmt: skip


def _paused(
    turns: list[dict[str, Any]], release: Path, usage: dict[str, int] | None = None
) -> dict[str, Any]:
    """A triage entry that plays `turns`, then (a turn of `usage`) waits for `release`."""
    entry = triage("live")
    pause: dict[str, Any] = {"actions": [{"pause_until": str(release)}]}
    if usage is not None:
        pause["usage"] = usage
    entry["turns"] = [*turns, pause, *entry["turns"]]
    return entry


def _running(world: World, number: int) -> SessionRecord | None:
    """The running session job.json shows for the issue's triage job, if any."""
    for path in world.repo_home.glob(f"jobs/issue-{number}-triage-*/job.json"):
        try:
            sessions = load_job_file(path).sessions
        except ValueError:
            continue  # written atomically, but a test may race the first write
        if sessions and sessions[-1].status == RUNNING:
            return sessions[-1]
    return None


@pytest.fixture
def release(tmp_path: Path) -> Iterator[Path]:
    """The file the paused session waits for; created at the end so the job can finish."""
    path = tmp_path / "release"
    yield path
    path.touch()


def _run_job(world: World, number: int) -> Process:
    return world.start("job", "--issue", str(number), "--stage", "triage")


def _end(job: Process, release: Path) -> None:
    release.touch()
    try:
        job.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(job.pid, signal.SIGKILL)
        job.communicate()


def test_a_tool_failing_three_times_shows_in_job_json_and_a_tick_steers_once(
    world: World, release: Path
) -> None:
    """WD-8 on live data: streak 3 of Bash while the session runs; one steer reaches the session.

    The scripted session hands off when a steer reaches it, which leaves handoff.md behind.
    """
    failing = [{"actions": [{"run": FAILING}]} for _ in range(3)]
    entry = _paused(failing, release) | {"on_steer": "handoff", "handoff": "Steered."}
    world.write_scenario([entry])
    number = world.open_issue("Live data [live]", "Watch me.").number
    job = _run_job(world, number)
    try:
        wait_for("a streak of 3 in job.json", lambda: _streak(world, number) == 3, timeout=120)
        session = _running(world, number)
        assert session is not None
        assert session.tool_failure is not None
        assert session.tool_failure.tool == "Bash"
        assert "pytest: error: no tests ran" in session.tool_failure.error
        orc = _orchestrator(world, RecordingExecutor())
        first = tick(orc, datetime.now(UTC))
        assert first.plan is not None
        steers = [d for d in first.plan.watchdog if isinstance(d, Steer)]
        assert [s.issue for s in steers] == [number]
        assert "```text\n" in steers[0].text
        assert "pytest: error: no tests ran" in steers[0].text
        again = tick(orc, datetime.now(UTC))
        assert again.plan is not None
        assert not [d for d in again.plan.watchdog if isinstance(d, Steer)]
    finally:
        _end(job, release)
    handoffs = world.repo_home.glob(f"jobs/issue-{number}-triage-*/sessions/*/handoff.md")
    assert [path.read_text() for path in handoffs] == ["Steered.\n"]


def _streak(world: World, number: int) -> int:
    session = _running(world, number)
    return 0 if session is None or session.tool_failure is None else session.tool_failure.streak


def test_a_live_context_past_its_budget_shows_in_job_json_and_a_tick_sends_sigterm(
    world: World, release: Path
) -> None:
    """WD-10 on live data: a 60k-token turn against triage's 50k budget → SIGTERM decided."""
    world.write_scenario([_paused([], release, {"input": 60_000, "output": 10})])
    number = world.open_issue("Live data [live]", "Watch me.").number
    job = _run_job(world, number)
    try:

        def context() -> int:
            session = _running(world, number)
            return 0 if session is None else session.last_context

        wait_for("the context in job.json", lambda: context() == 60_000, timeout=120)
        executor = RecordingExecutor()
        done = tick(_orchestrator(world, executor), datetime.now(UTC))
        assert done.plan is not None
        terminations = [d for d in done.plan.watchdog if isinstance(d, Terminate)]
        assert [(t.issue, t.pid) for t in terminations] == [(number, _job_pid(world, number))]
        assert executor.terminated == [_job_pid(world, number)]
    finally:
        _end(job, release)


def _job_pid(world: World, number: int) -> int:
    (path,) = world.repo_home.glob(f"jobs/issue-{number}-triage-*/job.json")
    return load_job_file(path).pid


def test_a_session_ended_on_the_usage_limit_holds_every_start_until_its_reset(
    world: World,
) -> None:
    """BB-PAUSE-7 end to end: the reset lands in job.json; the tick starts nothing, says why."""
    reset = int(time.time()) + 3600
    entry = triage("limit")
    entry["turns"] = [{"actions": [{"fail": {"kind": "rate-limit", "reset": reset}}]}]
    world.write_scenario([entry])
    number = world.open_issue("Limited [limit]", "Hit the limit.").number
    done = world.job(number, "triage")
    (path,) = world.repo_home.glob(f"jobs/issue-{number}-triage-*/job.json")
    session = load_job_file(path).sessions[-1]
    assert (session.status, session.rate_limit_reset) == (
        "rate_limited",
        datetime.fromtimestamp(reset, UTC),
    ), done.stderr
    executor = RecordingExecutor()
    now = datetime.now(UTC)
    tick(_orchestrator(world, executor), now)
    assert executor.starts == []
    status = json.loads((world.repo_home / "status.json").read_text())
    until = datetime.fromtimestamp(reset, UTC).isoformat()
    assert status["pauses"] == [
        {"kind": "usage-limit", "reason": f"provider usage limit until {until}"}
    ]
    assert [h["issue"] for h in status["holds"]] == [number]
    assert "usage-limit" in status["holds"][0]["reason"]
    later = tick(_orchestrator(world, executor), now + timedelta(hours=1, minutes=1))
    assert later.plan is not None
    assert not later.plan.schedule.pauses


def _limited_job(world: World, number: int, reset: datetime, now: datetime) -> None:
    """A finished job.json whose session ended on the usage limit with `reset`."""
    session = SessionRecord(
        key="triage-1", backend="claude", model="m", status="rate_limited", rate_limit_reset=reset
    )
    record = JobRecord(
        issue=number, stage="triage", role="reader", lane="lane-test", job_id="issue-limited",
        pid=2_000_000_000, process_start=1, started_at=now - timedelta(minutes=2), heartbeat=now,
        sessions=[session], finished=Finished(outcome="released", at=now),
    )  # fmt: skip
    folder = world.repo_home / "jobs" / record.job_id
    folder.mkdir(parents=True)
    (folder / "job.json").write_text(record.model_dump_json())


@pytest.mark.parametrize(
    ("ahead", "held_until"),
    [
        (timedelta(hours=1), timedelta(hours=1)),
        (timedelta(hours=20), timedelta(hours=8)),
        (timedelta(minutes=-1), None),
    ],
    ids=["an-hour-ahead", "twenty-hours-ahead-capped-at-eight", "past"],
)
def test_a_recorded_reset_holds_starts_until_it_capped_at_eight_hours(
    world: World, ahead: timedelta, held_until: timedelta | None
) -> None:
    """A reset ahead holds every start and status names until when; a past one holds nothing."""
    number = world.open_issue("Waiting [wait]", "Start me.").number
    now = datetime.now(UTC)
    _limited_job(world, number, now + ahead, now)
    executor = RecordingExecutor()
    tick(_orchestrator(world, executor), now)
    status = json.loads((world.repo_home / "status.json").read_text())
    if held_until is None:
        assert executor.starts == [(number, Stage.TRIAGE)]
        assert status["pauses"] == []
        return
    assert executor.starts == []
    until = (now + held_until).isoformat()
    assert status["pauses"] == [
        {"kind": "usage-limit", "reason": f"provider usage limit until {until}"}
    ]
    assert [h["issue"] for h in status["holds"]] == [number]
