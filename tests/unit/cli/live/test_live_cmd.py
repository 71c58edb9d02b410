"""`conveyor live` without a terminal, and the panel the run loop shows on one."""

from __future__ import annotations

import io
import json
import os
import queue
import signal
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest
from rich.console import Console

from conveyor.cli.live.follow import start_live
from conveyor.job.entry import python_argv
from tests.unit.cli.live.recorded import copy_home

WAIT = 30.0


def write_config(tmp_path: Path, repo_home: Path) -> Path:
    """A config whose home is the copied `$CONVEYOR_HOME`."""
    config = tmp_path / "conveyor.toml"
    config.write_text(
        'repo = "acme/inventory"\n'
        f"home = {json.dumps(str(repo_home.parent))}\n"
        'allowed_users = ["alice"]\n'
        '[account]\nlogin = "conveyor-bot"\ntoken_env = "CONVEYOR_TOKEN"\n'
        '[commands]\ntest = "true"\n'
    )
    return config


@pytest.fixture
def live_process(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Path]]:
    """`conveyor live --backlog 2` on the recorded home, stdout a pipe (not a terminal)."""
    repo_home = copy_home(tmp_path)
    argv = [*python_argv(), "live", "--config", str(write_config(tmp_path, repo_home))]
    argv += ["--backlog", "2"]
    env = {**os.environ, "CONVEYOR_HOME": str(tmp_path / "home"), "HOME": str(tmp_path)}
    proc = subprocess.Popen(
        [*argv, "--interval", "0.05"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    yield proc, repo_home
    if proc.poll() is None:
        proc.kill()
    proc.wait()


def reader(stream: IO[str]) -> tuple[queue.Queue[str], threading.Thread]:
    """Lines of `stream` as they come, read by a thread (ends at EOF) so a test can wait."""
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        for line in stream:
            lines.put(line.rstrip("\n"))

    thread = threading.Thread(target=pump, daemon=True)
    thread.start()
    return lines, thread


def next_line(lines: queue.Queue[str], proc: subprocess.Popen[str]) -> str:
    """The next stdout line; if none comes, fail with what the process said on stderr."""
    try:
        return lines.get(timeout=WAIT)
    except queue.Empty:
        proc.kill()
        _, err = proc.communicate()
        pytest.fail(f"no line from `conveyor live` in {WAIT} s; stderr:\n{err}")


def test_live_prints_the_backlog_then_each_new_event_once_and_stops_on_ctrl_c(
    live_process: tuple[subprocess.Popen[str], Path],
) -> None:
    """Off a terminal: the last two events, then appended ones, then Ctrl-C exits with 0."""
    proc, repo_home = live_process
    assert proc.stdout is not None
    lines, pump = reader(proc.stdout)
    first = [next_line(lines, proc) for _ in range(2)]
    assert first[0].endswith("#7 review  session review-security-1 started")
    assert first[1].endswith("#9 fix  stopped by fix-loop: the same finding came back 3 times")
    merged = {"ts": "2026-11-29T12:07:00Z", "issue": 7, "stage": "merge", "kind": "merged"}
    with (repo_home / "runs" / "issue-7" / "events.jsonl").open("a") as out:
        out.write(json.dumps({**merged, "job": "j7", "pr": 21}) + "\n")
    assert next_line(lines, proc) == "2026-11-29 12:07:00  #7 merge  merged PR #21"
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=WAIT) == 0
    pump.join(timeout=WAIT)
    assert not pump.is_alive()
    assert lines.empty()  # nothing printed after the merge: no event came out twice


def test_live_names_a_missing_config_and_exits_2(tmp_path: Path) -> None:
    """A config path that does not exist is named on stderr."""
    argv = [*python_argv(), "live"]
    missing = tmp_path / "nope.toml"
    done = subprocess.run(
        [*argv, "--config", str(missing)], capture_output=True, text=True, timeout=WAIT, check=False
    )
    assert done.returncode == 2
    assert f"{missing}: no such file" in done.stderr


def test_on_a_terminal_the_run_loop_gets_a_panel_that_stop_leaves_on_screen(
    tmp_path: Path,
) -> None:
    """start_live draws the queue, holds and stops on a terminal console; stop() ends it."""
    repo_home = copy_home(tmp_path)
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=120, color_system=None)
    handle = start_live(repo_home, console, interval=60)
    handle.refresh()
    handle.stop()
    handle.stop()
    text = out.getvalue()
    assert "#4 held at implement: touches the same files as #7" in text
    assert "#9 stopped by fix-loop" in text
    assert "spent today $1.25" in text
