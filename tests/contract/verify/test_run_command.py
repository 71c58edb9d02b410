"""run_command with real processes: outcomes, the log, the environment, the timeout."""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from conveyor.core.verify import Outcome
from conveyor.verify import run_command
from conveyor.verify.commands import TAIL_BYTES
from tests.contract.verify.repo_kit import PY

pytestmark = pytest.mark.contract


def gone(pid: int) -> bool:
    """Whether `pid` no longer runs (a zombie waiting to be reaped counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


def test_a_passing_command_keeps_its_whole_log_and_returns_the_tail(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """Output of any length is kept in full in the log; the result holds its last ~4 kB."""
    command = f"{PY} -c \"print('x' * 20000); print('the end')\""
    log = tmp_path / "logs" / "test.log"
    result = run_command("test", command, tmp_path, env=env, timeout_s=60, log_path=log)
    assert (result.outcome, result.exit_code) == (Outcome.PASSED, 0)
    assert result.log_path == str(log)
    assert "x" * 20000 in log.read_text()
    assert result.tail.rstrip().endswith("the end")
    assert len(result.tail.encode()) <= TAIL_BYTES
    assert result.duration_s >= 0


def test_a_failing_command_reports_its_exit_code_and_stderr(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """stderr goes into the same log as stdout."""
    command = f"{PY} -c \"import sys; sys.stderr.write('broken here'); sys.exit(4)\""
    result = run_command(
        "lint", command, tmp_path, env=env, timeout_s=60, log_path=tmp_path / "lint.log"
    )
    assert (result.outcome, result.exit_code) == (Outcome.FAILED, 4)
    assert "broken here" in result.tail


def test_commands_get_exactly_the_given_environment(
    tmp_path: Path, env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A secret in the job's own environment never reaches the command."""
    monkeypatch.setenv("CONVEYOR_TEST_SECRET", "canary-value")
    monkeypatch.setenv("GH_TOKEN", "canary-token")
    command = f"{PY} -c \"import os; print(' '.join(sorted(os.environ)))\""
    given = {**env, "ONLY_THIS": "1"}
    result = run_command(
        "test", command, tmp_path, env=given, timeout_s=60, log_path=tmp_path / "env.log"
    )
    names = set(result.tail.split())
    assert {"ONLY_THIS", "PATH", "HOME"} <= names
    assert "CONVEYOR_TEST_SECRET" not in names
    assert "GH_TOKEN" not in names


def test_a_hanging_command_times_out_and_its_whole_process_group_is_killed(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """A timeout ends the command and every process it started, and says so."""
    pid_file = tmp_path / "child.pid"
    command = f"sleep 600 & echo $! > {pid_file}; wait"
    log = tmp_path / "hang.log"
    result = run_command("test", command, tmp_path, env=env, timeout_s=3, log_path=log)
    assert result.outcome is Outcome.TIMED_OUT
    assert result.exit_code is None
    assert "timed out" in log.read_text()
    child = int(pid_file.read_text())
    deadline = time.monotonic() + 30
    while not gone(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert gone(child)


def test_a_command_in_a_missing_folder_fails_with_the_reason(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """A command that cannot start is a failed result naming the folder, not a crash."""
    missing = tmp_path / "nowhere"
    result = run_command(
        "setup", "true", missing, env=env, timeout_s=10, log_path=tmp_path / "setup.log"
    )
    assert result.outcome is Outcome.FAILED
    assert str(missing) in result.reason


def test_the_process_group_is_the_commands_own(tmp_path: Path, env: dict[str, str]) -> None:
    """The command runs in a new session, so signals to its group never reach the job."""
    command = f'{PY} -c "import os; print(os.getpgid(0), os.getsid(0))"'
    result = run_command(
        "test", command, tmp_path, env=env, timeout_s=60, log_path=tmp_path / "pg.log"
    )
    pgid, sid = (int(v) for v in result.tail.split()[-2:])
    assert pgid != os.getpgid(0)
    assert sid != os.getsid(0)


def test_the_heartbeat_is_called_while_a_command_runs(tmp_path: Path, env: dict[str, str]) -> None:
    """A long command keeps the job's heartbeat going."""
    beats: list[int] = []
    result = run_command(
        "test",
        "sleep 1",
        tmp_path,
        env=env,
        timeout_s=60,
        log_path=tmp_path / "beat.log",
        heartbeat=lambda: beats.append(1),
        heartbeat_every_s=0.1,
    )
    assert result.outcome is Outcome.PASSED
    assert beats


def test_an_interrupted_wait_kills_the_command_and_is_raised(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """When the wait is interrupted (here by a failing heartbeat), no process is left behind."""
    pid_file = tmp_path / "child.pid"

    def interrupt() -> None:
        if pid_file.is_file() and pid_file.read_text().strip():
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_command(
            "test",
            f"sleep 600 & echo $! > {pid_file}; wait",
            tmp_path,
            env=env,
            timeout_s=120,
            log_path=tmp_path / "int.log",
            heartbeat=interrupt,
            heartbeat_every_s=0.05,
        )
    child = int(pid_file.read_text())
    deadline = time.monotonic() + 30
    while not gone(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert gone(child)


def test_a_run_leaves_its_record_for_the_timeline_next_to_its_log(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """`test.run.json`: the command's name, when it began and ended, and how it ended."""
    log = tmp_path / "logs" / "test.log"
    before = datetime.now(UTC)
    run_command("test", f'{PY} -c "import time; time.sleep(0.3)"', tmp_path, env=env,
                timeout_s=60, log_path=log)  # fmt: skip
    failed = run_command("lint", "exit 3", tmp_path, env=env, timeout_s=60,
                         log_path=tmp_path / "logs" / "lint.log")  # fmt: skip
    record = json.loads((tmp_path / "logs" / "test.run.json").read_text())
    started, ended = (datetime.fromisoformat(record[k]) for k in ("started_at", "ended_at"))
    assert (record["name"], record["outcome"]) == ("test", "passed")
    assert before <= started
    assert (ended - started).total_seconds() >= 0.3
    assert ended <= datetime.now(UTC)
    lint = json.loads((tmp_path / "logs" / "lint.run.json").read_text())
    assert (lint["name"], lint["outcome"]) == ("lint", failed.outcome.value)
