"""Starting a job by fork: exit codes, exactly the given environment, sessions, signals, exits."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from conveyor.job.fork_start import job_start

PROBE = Path(__file__).with_name("fork_probe.py")
KIT_PROBE = Path(__file__).with_name("kit_models_probe.py")


def _probe(tmp_path: Path, case: str, *more: str) -> tuple[dict[str, Any], str]:
    """Run one case of the probe in a fresh process; what it printed, and the children's log."""
    done = subprocess.run(
        [sys.executable, str(PROBE), case, str(tmp_path), *more],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    log = tmp_path / "log"
    return json.loads(done.stdout.splitlines()[-1]), log.read_text() if log.exists() else ""


def test_a_forked_conveyor_job_with_a_bad_stage_exits_2_and_says_why(tmp_path: Path) -> None:
    """The child runs the real `conveyor` entry point: a usage error is exit 2, named on stderr."""
    result, log = _probe(tmp_path, "job", "job", "--issue", "1", "--stage", "nonsense")
    assert result["code"] == 2
    assert "--stage" in log
    assert "nonsense" in log


def test_a_forked_conveyor_command_that_succeeds_exits_0(tmp_path: Path) -> None:
    """`conveyor --help` in a forked child ends with 0 and its output in the child's log."""
    result, log = _probe(tmp_path, "job", "--help")
    assert result["code"] == 0
    assert "Usage" in log


def test_the_child_sees_exactly_the_given_environment_and_no_parent_variable(
    tmp_path: Path,
) -> None:
    """A variable only the parent has (a token) never reaches the child; the parent keeps it."""
    result, _ = _probe(tmp_path, "env")
    assert result["code"] == 0
    assert result["env"] == {"ONLY": "yes", "PATH": "/usr/bin"}
    assert result["parent_still_has"] == "parent-secret"


def test_a_child_in_a_new_session_has_its_own_session_id(tmp_path: Path) -> None:
    """`new_session=True` puts the child in a session of its own, so it outlives the parent's."""
    result, _ = _probe(tmp_path, "session")
    assert result["code"] == 0
    assert result["child_sid"] != result["parent_sid"]


def test_a_child_without_a_new_session_stays_in_the_parents_session(tmp_path: Path) -> None:
    """Without `new_session` the child shares the parent's session (drive's Ctrl-C reaches it)."""
    result, _ = _probe(tmp_path, "same-session")
    assert result["child_sid"] == result["parent_sid"]


def test_a_childs_exception_is_a_nonzero_exit_with_its_traceback_on_stderr(
    tmp_path: Path,
) -> None:
    """An exception escaping the child is exit 1 and a traceback naming it on its stderr."""
    result, log = _probe(tmp_path, "raise")
    assert result["code"] == 1
    assert "Traceback" in log
    assert "RuntimeError: probe failure 17" in log


def test_sys_exit_with_text_prints_it_and_exits_1(tmp_path: Path) -> None:
    """`sys.exit("…")` in the child behaves as in the interpreter: the text on stderr, exit 1."""
    result, log = _probe(tmp_path, "exit-text")
    assert result["code"] == 1
    assert "exit text 42" in log


def test_the_parents_sigterm_handler_is_not_the_childs(tmp_path: Path) -> None:
    """A parent that catches SIGTERM (the orchestrator) forks a child that SIGTERM ends."""
    result, _ = _probe(tmp_path, "sigterm")
    assert result["code"] == -15


def test_the_child_runs_its_own_exit_handlers_but_never_the_parents(tmp_path: Path) -> None:
    """The parent's atexit handlers stay the parent's; the child's own still run at its end."""
    result, _ = _probe(tmp_path, "atexit")
    assert result["code"] == 0
    assert result["child_handler_ran"] is True
    assert result["parent_handler_ran"] is False


def test_waiting_for_a_running_child_times_out_then_gives_its_exit_code(tmp_path: Path) -> None:
    """`ForkedChild` waits like `Popen`: None and a timeout while it runs, then its code."""
    result, _ = _probe(tmp_path, "timeout")
    assert result["timed_out"] is True
    assert result["polled"] is None
    assert result["code"] == 4


def test_a_process_with_a_second_thread_does_not_fork(tmp_path: Path) -> None:
    """Forking is allowed in a single-threaded process only."""
    result, _ = _probe(tmp_path, "threads")
    assert (result["alone"], result["with_thread"]) == (True, False)


def test_jobs_start_by_fork_unless_the_environment_asks_for_exec() -> None:
    """`CONVEYOR_JOB_START=exec` (any case) turns forking off; anything else leaves it on."""
    assert job_start({}) == "fork"
    assert job_start({"CONVEYOR_JOB_START": "exec"}) == "exec"
    assert job_start({"CONVEYOR_JOB_START": " EXEC "}) == "exec"
    assert job_start({"CONVEYOR_JOB_START": "fork"}) == "fork"


def test_after_preload_a_jobs_forge_requests_load_none_of_githubkits_models(
    tmp_path: Path,
) -> None:
    """A forking parent loads the models githubkit's methods import on first use, once."""
    done = subprocess.run(
        [sys.executable, str(KIT_PROBE), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == {"loaded": []}
