"""The chaos harness: `conveyor run` on several issues while a seeded schedule SIGKILLs its
jobs and itself, the forge answering a share of requests 502 or 429.

A killed orchestrator is started again at once (it adopts the jobs still running). A kill
that would hit one issue's jobs in one stage more than `max_resumes` times hits the
orchestrator instead, so the watchdog's limit is never reached by design. The run ends
when the orchestrator finds nothing left to do, or at the deadline.
"""

from __future__ import annotations

import os
import re
import signal
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from conveyor.job.jobfile import load_job_file
from conveyor.testing.chaos.scenario import chaos_config, sessions, tags
from conveyor.testing.chaos.schedule import Kill
from conveyor.testing.emulator import ForgeServer
from conveyor.testing.world import World

_STARTED = re.compile(r"started #(\d+) (\w+) pid (\d+)")
POLL_S = 0.05
MAX_RESUMES = 2  # the config's default, which the chaos config keeps


@dataclass(frozen=True, slots=True)
class Killed:
    """One kill carried out: when, what it hit, and which issue and stage for a job."""

    at: float
    target: str
    pid: int
    issue: int | None = None
    stage: str | None = None


@dataclass
class ChaosRun:
    """A finished run: the world, the issue numbers by tag, and what the harness did."""

    world: World
    numbers: dict[str, int]
    base_sha: str
    killed: list[Killed] = field(default_factory=list)
    not_reached: int = 0
    restarts: int = 0
    wall_s: float = 0.0
    timed_out: bool = False
    faults: int = 0
    requests: int = 0


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[:1] not in (["Z"], ["X"])


def live_jobs(home: Path) -> list[tuple[int, int, str]]:
    """(pid, issue, stage) of every job alive now: those with a job.json still unfinished,
    and those started (orchestrator.log) that have not written one yet."""
    found: dict[int, tuple[int, int, str]] = {}
    for path in sorted(home.glob("jobs/*/job.json")):
        try:
            record = load_job_file(path)
        except (OSError, ValueError):
            continue
        if record.finished is None and _alive(record.pid):
            found[record.pid] = (record.pid, record.issue, record.stage)
    log = home / "orchestrator.log"
    text = log.read_text(encoding="utf-8", errors="replace") if log.is_file() else ""
    for match in _STARTED.finditer(text):
        pid = int(match[3])
        if pid not in found and _alive(pid):
            found[pid] = (pid, int(match[1]), match[2])
    return [found[pid] for pid in sorted(found)]


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        return


def set_up(server: ForgeServer, root: Path, count: int) -> ChaosRun:
    """A fresh repository with the chaos config and scenario, and its issues opened."""
    world = World.create(server, root / "world", config=chaos_config())
    all_tags = tags(count)
    world.write_scenario(sessions(all_tags))
    base = world.ref("refs/heads/main")
    assert base is not None
    numbers = {
        tag: world.open_issue(f"Add {tag}() [{tag}]", f"`{tag}()` returns 1.").number
        for tag in all_tags
    }
    return ChaosRun(world, numbers, base)


class _Harness:
    """The loop's working values; only `run_chaos` uses it."""

    def __init__(self, run: ChaosRun, schedule: tuple[Kill, ...]) -> None:
        self.run = run
        self.pending = list(schedule)
        self.hits: Counter[tuple[int, str]] = Counter()
        self.orchestrator = run.world.start("run", "--until-idle")
        self.t0 = time.monotonic()

    def elapsed(self) -> float:
        return time.monotonic() - self.t0

    def kill(self, kill: Kill) -> None:
        home = self.run.world.repo_home
        jobs = [j for j in live_jobs(home) if self.hits[(j[1], j[2])] < MAX_RESUMES]
        at = round(self.elapsed(), 2)
        if kill.target == "job" and jobs:
            pid, issue, stage = jobs[int(kill.pick * len(jobs)) % len(jobs)]
            self.hits[(issue, stage)] += 1
            _kill_group(pid)
            self.run.killed.append(Killed(at, "job", pid, issue, stage))
            return
        pid = self.orchestrator.pid
        if self.orchestrator.poll() is None:
            _kill_group(pid)
            self.run.killed.append(Killed(at, "orchestrator", pid))
            self.orchestrator.communicate(timeout=30)
            self.restart()
        else:
            self.run.not_reached += 1

    def restart(self) -> None:
        self.orchestrator = self.run.world.start("run", "--until-idle")
        self.run.restarts += 1

    def stop_everything(self) -> None:
        if self.orchestrator.poll() is None:
            _kill_group(self.orchestrator.pid)
        for pid, _, _ in live_jobs(self.run.world.repo_home):
            _kill_group(pid)
        self.orchestrator.communicate(timeout=30)


def run_chaos(
    server: ForgeServer,
    root: Path,
    *,
    count: int,
    schedule: tuple[Kill, ...],
    fail_rate: float,
    deadline_s: float,
    seed: int,
) -> ChaosRun:
    """Set up `count` issues, run them through the chaos, and return what happened."""
    run = set_up(server, root, count)
    state = server.state
    assert state is not None, "the forge must run in this process"
    before = server.stats()
    state.rng.seed(seed)
    state.knobs.fail_rate = fail_rate
    harness = _Harness(run, schedule)
    idle_exits = 0
    try:
        while True:
            if harness.elapsed() > deadline_s:
                run.timed_out = True
                harness.stop_everything()
                break
            if harness.pending and harness.elapsed() >= harness.pending[0].at:
                harness.kill(harness.pending.pop(0))
                continue
            if harness.orchestrator.poll() is not None:
                harness.orchestrator.communicate(timeout=30)
                idle_exits += 1
                # Idle with kills still to come: once more, so a last kill can still land
                # and an orchestrator started afresh checks nothing was left behind.
                if idle_exits >= 2 or not harness.pending:
                    break
                harness.restart()
                continue
            time.sleep(POLL_S)
    finally:
        state.knobs.fail_rate = 0.0
        run.wall_s = round(harness.elapsed(), 2)
        run.not_reached += len(harness.pending)
        after = server.stats()
        run.faults = int(after["faults"]) - int(before["faults"])
        run.requests = int(after["requests"]) - int(before["requests"])
    return run
