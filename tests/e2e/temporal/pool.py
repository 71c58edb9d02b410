"""A worker pool in tests: worker configs with their own homes, workers, the orchestrator."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import Any

from conveyor.job.entry import conveyor_argv
from conveyor.job.jobfile import JobRecord, load_job_file
from conveyor.testing.world import World, config_toml

QUEUE = "conveyor-tests"


def worker_config(world: World, root: Path, name: str, overrides: dict[str, Any]) -> Path:
    """A worker's own config file for the World's repository, with its own home."""
    data = world.base_config() | {"home": str(root / f"home-{name}")}
    for key, value in overrides.items():
        data[key] = {**data.get(key, {}), **value} if isinstance(value, dict) else value
    path = root / f"config-{name}" / "conveyor.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(config_toml(data))
    return path


def worker_home(world: World, root: Path, name: str) -> Path:
    """The repository's folder in a worker's home."""
    return root / f"home-{name}" / world.repo.replace("/", "__")


def start_worker(world: World, address: str, config: Path, log: Path, jobs: int = 1) -> Worker:
    """`conveyor worker` on the queue, its output in `log`."""
    argv = [*conveyor_argv(), "worker", "--temporal", address, "--queue", QUEUE]
    argv += ["--config", str(config), "--jobs", str(jobs)]
    with log.open("w") as out:
        process = subprocess.Popen(
            argv, env=world.env(), stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    return Worker(process, log)


class Worker:
    """A running `conveyor worker` and its log."""

    def __init__(self, process: subprocess.Popen[bytes], log: Path) -> None:
        self.process = process
        self.log = log

    def identity(self, timeout: float = 60.0) -> str:
        """The identity it reports to Temporal (its first line says it)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.log.read_text() if self.log.exists() else ""
            if text.startswith("worker ") and "\n" in text:
                return text.split()[1]
            time.sleep(0.1)
        msg = f"the worker did not start: {self.log.read_text()}"
        raise AssertionError(msg)

    def stop(self) -> None:
        """SIGTERM it and wait (SIGKILL after 30 s)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def run_argv(address: str, heartbeat: float) -> list[str]:
    """`conveyor run --until-idle` on the pool's queue."""
    return [
        "run", "--until-idle", "--executor", "temporal", "--temporal", address,
        "--queue", QUEUE, "--heartbeat-timeout", str(heartbeat),
    ]  # fmt: skip


def jobs_of(home: Path, issue: int, stage: str) -> list[JobRecord]:
    """The issue's recorded jobs of one stage in a home, oldest first."""
    found = [load_job_file(p) for p in home.glob(f"jobs/issue-{issue}-{stage}-*/job.json")]
    return sorted(found, key=lambda record: record.started_at)
