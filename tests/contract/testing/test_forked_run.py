"""The tests' fork server answers a `conveyor` command as `subprocess.run` of it would."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conveyor.testing.forked_run import (
    EXEC_ENV,
    run_conveyor,
    server_pid,
    start_conveyor,
    start_script,
)

ENV = {k: v for k in ("PATH", "LANG") if (v := os.environ.get(k)) is not None} | {"COLUMNS": "100"}


def _children_of(pid: int) -> list[int]:
    """The live processes whose parent is `pid`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


@pytest.mark.parametrize(
    "args",
    [("--help",), ("job", "--issue", "1", "--stage", "nonsense")],
    ids=["help", "usage-error"],
)
def test_a_forked_command_exits_and_prints_as_the_execd_one_does(
    args: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Exit code, stdout and stderr, each apart, are those of the same command exec'd."""
    env = ENV | {"HOME": str(tmp_path)}
    forked = run_conveyor(args, env, timeout=60)
    monkeypatch.setenv(EXEC_ENV, "1")
    execd = run_conveyor(args, env, timeout=60)
    assert (forked.returncode, forked.stdout, forked.stderr) == (
        execd.returncode,
        execd.stdout,
        execd.stderr,
    )
    assert forked.returncode == (0 if args == ("--help",) else 2)


def test_a_command_past_its_timeout_is_killed_with_its_group_and_the_server_goes_on(
    tmp_path: Path,
) -> None:
    """A forge that serves forever: TimeoutExpired with what it printed, and no child left."""
    env = ENV | {"HOME": str(tmp_path)}
    with pytest.raises(subprocess.TimeoutExpired) as timed_out:
        run_conveyor(("forge", "serve", "--data", str(tmp_path / "data")), env, timeout=8)
    assert "http://" in str(timed_out.value.output)
    server = server_pid()
    assert server is not None
    deadline = time.monotonic() + 10
    while _children_of(server) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _children_of(server) == []
    assert run_conveyor(("--help",), env, timeout=60).returncode == 0


@pytest.mark.parametrize("start", ["fork", "exec"])
def test_a_started_command_is_polled_signalled_and_read_as_a_popen_is(
    start: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A forge serving forever: running until signalled, in its own group, then its output."""
    if start == "exec":
        monkeypatch.setenv(EXEC_ENV, "1")
    env = ENV | {"HOME": str(tmp_path)}
    command = start_conveyor(("forge", "serve", "--data", str(tmp_path / "data")), env)
    assert os.getpgid(command.pid) == command.pid
    deadline = time.monotonic() + 30
    while not (tmp_path / "data").is_dir() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert command.poll() is None
    with pytest.raises(subprocess.TimeoutExpired):
        command.communicate(timeout=1)
    command.send_signal(signal.SIGTERM)
    out, _ = command.communicate(timeout=30)
    assert out.startswith("http://")
    assert command.returncode == command.poll() == -signal.SIGTERM
    command.kill()  # after the end: nothing to signal, no error


def test_a_forked_script_sees_its_arguments_and_folder_and_exits_as_the_execd_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`python SCRIPT ARGS` forked: the same output, stderr and exit code as exec'd."""
    script = tmp_path / "probe.py"
    script.write_text(
        "import sys\n"
        "print(sys.argv[1:], sys.path[0] == sys.argv[0].rsplit('/', 1)[0])\n"
        "if __name__ == '__main__':\n"
        "    sys.exit('ended: ' + sys.argv[1])\n"
    )
    env = ENV | {"HOME": str(tmp_path)}
    answers = []
    for start in ("fork", "exec"):
        if start == "exec":
            monkeypatch.setenv(EXEC_ENV, "1")
        command = start_script(script, ["one", "two"], env)
        out, err = command.communicate(timeout=60)
        answers.append((command.wait(), out, err))
    assert answers[0] == answers[1]
    assert answers[0] == (1, "['one', 'two'] True\n", "ended: one\n")
