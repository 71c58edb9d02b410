"""Running the stand-in stage script and reading what a job left behind."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from conveyor.core.state import IssueState
from conveyor.core.state_codec import encode_state
from conveyor.testing.forked_run import Process
from conveyor.testing.forked_run import start_script as start_script_fork
from conveyor.testing.world import ACCOUNT, World

SCRIPT = Path(__file__).with_name("stage_script.py")


def start_script(world: World, issue: int, stage: str, behaviour: str) -> Process:
    """Start a job with a stand-in runner (see stage_script.py), forked as `World.start` is."""
    args = [str(world.config_path), str(issue), stage, behaviour]
    return start_script_fork(SCRIPT, args, world.env())


def run_script(world: World, issue: int, stage: str, behaviour: str) -> tuple[int, str]:
    """Run a stand-in job to its end: exit code and stderr."""
    proc = start_script(world, issue, stage, behaviour)
    _, err = proc.communicate(timeout=120)
    return proc.wait(), err


def job_dirs(world: World, issue: int) -> list[Path]:
    """The issue's job folders, oldest first."""
    jobs = world.repo_home / "jobs"
    found = jobs.glob(f"issue-{issue}-*") if jobs.is_dir() else []
    return sorted(found, key=lambda d: d.name.rsplit("-", 1)[-1])


def wait_for(path: Path, proc: Process, timeout: float = 60) -> None:
    """Wait until `path` exists (the job reached its waiting point) or fail."""
    deadline = time.monotonic() + timeout
    while not path.exists():
        if proc.poll() is not None:
            _, err = proc.communicate()
            msg = f"the job ended early ({proc.returncode}): {err}"
            raise AssertionError(msg)
        if time.monotonic() > deadline:
            msg = f"{path} did not appear"
            raise AssertionError(msg)
        time.sleep(0.05)


def seed_state(world: World, issue: int, state: IssueState) -> None:
    """Save a state comment as the pipeline's account (an issue already under way)."""
    world.forge_as(ACCOUNT).create_comment(issue, encode_state(state))


def read_json(path: Path) -> Any:
    """A JSON file's content."""
    return json.loads(path.read_text())


def wait_for_new_job(world: World, issue: int, proc: Process, before: int = 0) -> Path:
    """The job folder the running `proc` creates (after `before` earlier ones), once it exists."""
    deadline = time.monotonic() + 60
    while len(found := job_dirs(world, issue)) <= before:
        if proc.poll() is not None:
            _, err = proc.communicate()
            msg = f"the job ended early ({proc.returncode}): {err}"
            raise AssertionError(msg)
        if time.monotonic() > deadline:
            msg = "no job folder appeared"
            raise AssertionError(msg)
        time.sleep(0.05)
    return found[-1]
