"""The local executor: jobs in their own session, adopted by pid and process start time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from conveyor.core.state import Stage
from conveyor.job.jobfile import JobRecord, process_start_ticks
from conveyor.orchestrator.shell.executor import (
    JobHandle,
    LocalExecutor,
    adopt,
    process_alive,
    read_jobs,
)

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
FAKE_JOB = """
import json, os, signal, sys
out = os.environ["FAKE_JOB_OUT"]
with open(out + ".tmp", "w") as f:
    json.dump({"argv": sys.argv[1:], "sid": os.getsid(0), "pid": os.getpid()}, f)
os.replace(out + ".tmp", out)
signal.pause()
"""


def _wait_for(path: Path, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.02)


@pytest.fixture
def executor(tmp_path: Path) -> Iterator[LocalExecutor]:
    """An executor whose `conveyor` is a fake job that reports itself and waits for a signal."""
    script = tmp_path / "fake_job.py"
    script.write_text(FAKE_JOB)
    environ = {**os.environ, "FAKE_JOB_OUT": str(tmp_path / "started.json")}
    made = LocalExecutor(
        tmp_path / "conveyor.toml",
        "lane-a",
        tmp_path / "home",
        environ,
        (sys.executable, str(script)),
    )
    yield made
    for child in made._children.values():
        child.kill()
        child.wait()


def test_a_started_job_runs_in_its_own_session_with_the_job_command(
    executor: LocalExecutor, tmp_path: Path
) -> None:
    """The child runs `job --config C --issue N --stage S --lane L` as a session leader."""
    handle = executor.start(7, Stage.REVIEW, NOW)
    _wait_for(tmp_path / "started.json")
    seen = json.loads((tmp_path / "started.json").read_text())
    assert seen["argv"] == [
        "job", "--config", str(tmp_path / "conveyor.toml"),
        "--issue", "7", "--stage", "review", "--lane", "lane-a",
    ]  # fmt: skip
    assert seen["sid"] == seen["pid"] == handle.pid != os.getsid(0)
    assert executor.alive(handle)


def test_terminate_ends_the_job_and_alive_sees_it(executor: LocalExecutor, tmp_path: Path) -> None:
    """After SIGTERM the job exits and is no longer alive."""
    handle = executor.start(8, Stage.IMPLEMENT, NOW, resume=True)
    _wait_for(tmp_path / "started.json")
    executor.terminate(handle)
    assert executor.wait(handle, timeout=20) == -15
    assert not executor.alive(handle)


def _record(home: Path, name: str, pid: int, start: int | None, *, done: bool = False) -> None:
    folder = home / "jobs" / name
    folder.mkdir(parents=True)
    issue = int(name.split("-")[1])
    data = JobRecord(
        issue=issue, stage="fix", role="writer", lane="lane-a", job_id=name, pid=pid,
        process_start=start, started_at=NOW, heartbeat=NOW,
    ).model_dump(mode="json")  # fmt: skip
    if done:
        data["finished"] = {"outcome": "saved", "at": NOW.isoformat()}
    (folder / "job.json").write_text(json.dumps(data))


def test_adopt_finds_only_live_unfinished_jobs_with_their_own_start_time(tmp_path: Path) -> None:
    """A reused pid (same pid, other start time), a dead pid and a finished job are not adopted."""
    home = tmp_path / "home"
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        start = process_start_ticks(live.pid)
        assert start is not None
        _record(home, "issue-1-fix-a", live.pid, start)
        _record(home, "issue-2-fix-b", live.pid, start - 1)
        _record(home, "issue-3-fix-c", live.pid, start, done=True)
        dead = subprocess.Popen([sys.executable, "-c", "pass"])
        dead.wait()
        _record(home, "issue-4-fix-d", dead.pid, 1)
        (home / "jobs" / "issue-5-fix-e").mkdir()
        (home / "jobs" / "issue-5-fix-e" / "job.json").write_text("{not json")
        adopted = adopt(home)
        assert [(h.issue, h.pid, h.stage) for h in adopted] == [(1, live.pid, Stage.FIX)]
        assert sorted((j.record.issue, j.alive) for j in read_jobs(home)) == [
            (1, True), (2, False), (3, False), (4, False),
        ]  # fmt: skip
    finally:
        live.kill()
        live.wait()


def test_an_adopted_job_is_alive_until_its_process_ends(tmp_path: Path) -> None:
    """An executor that did not start the job still tells when it is gone."""
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    executor = LocalExecutor(tmp_path / "c.toml", "lane-b", tmp_path / "home", {})
    handle = JobHandle(3, Stage.SPEC, other.pid, process_start_ticks(other.pid), NOW)
    assert executor.alive(handle)
    other.kill()
    other.wait()
    assert not executor.alive(handle)


def test_an_exited_but_unreaped_job_is_not_alive() -> None:
    """A zombie (exited, not yet reaped, e.g. under a non-reaping init) is a dead job."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        deadline = time.monotonic() + 30
        while not _exited(child.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not process_alive(child.pid, process_start_ticks(child.pid))
    finally:
        child.wait()


def _exited(pid: int) -> bool:
    stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
    return stat.rpartition(")")[2].split()[0] == "Z"
