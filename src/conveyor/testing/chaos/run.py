"""The chaos harness: `conveyor run` on several issues while a seeded schedule SIGKILLs its
jobs and itself, the forge answering a share of requests 502 or 429.

Jobs are known from `orchestrator.log`'s `started #N <stage> pid P` lines, in order. A job
kill whose job has already ended, or that would hit one issue's jobs in one stage more
than `max_resumes` times (the watchdog's limit is never reached by design), moves on to
the next job to start. A killed orchestrator is started again at once and adopts the jobs
still running. The run ends when the orchestrator finds nothing left to do (twice, the
second time started afresh), or at the deadline.
"""

from __future__ import annotations

import os
import re
import signal
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from conveyor.emulator.app.server import ForgeServer
from conveyor.testing.chaos.scenario import chaos_config, sessions, tags
from conveyor.testing.chaos.schedule import JobKill, Schedule
from conveyor.testing.world import World

_STARTED = re.compile(r"started #(\d+) (\w+) pid (\d+)")
POLL_S = 0.05
MAX_RESUMES = 2  # the config's default, which the chaos config keeps


@dataclass(frozen=True, slots=True)
class Killed:
    """One kill carried out: seconds into the run, what it hit (a job's issue and stage)."""

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
    missed: int = 0
    restarts: int = 0
    jobs_started: int = 0
    wall_s: float = 0.0
    timed_out: bool = False
    faults: int = 0
    requests: int = 0


@dataclass(frozen=True, slots=True)
class _Start:
    nth: int
    pid: int
    issue: int
    stage: str
    seen: float


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie does not)."""
    try:
        os.kill(pid, 0)
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except (OSError, ProcessLookupError):
        return False
    return stat.rpartition(")")[2].split()[:1] not in (["Z"], ["X"])


def kill_group(pid: int) -> None:
    """SIGKILL the process group `pid` leads (a job or the orchestrator, each its own)."""
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

    def __init__(self, run: ChaosRun, schedule: Schedule) -> None:
        self.run = run
        self.job_kills = list(schedule.jobs)
        self.loop_kills = list(schedule.loops)
        self.starts: list[_Start] = []
        self.read = 0
        self.hits: Counter[tuple[int, str]] = Counter()
        self.t0 = time.monotonic()
        self.orchestrator = run.world.start("run", "--until-idle")

    def elapsed(self) -> float:
        return time.monotonic() - self.t0

    def watch_starts(self) -> None:
        """Take in the `started` lines the log gained since the last look."""
        log = self.run.world.repo_home / "orchestrator.log"
        try:
            with log.open("rb") as f:
                f.seek(self.read)
                chunk = f.read()
        except OSError:
            return
        whole = chunk[: chunk.rfind(b"\n") + 1]
        self.read += len(whole)
        for match in _STARTED.finditer(whole.decode("utf-8", errors="replace")):
            nth = len(self.starts) + 1
            self.starts.append(_Start(nth, int(match[3]), int(match[1]), match[2], self.elapsed()))

    def due_job_kill(self) -> None:
        """Carry out the next job kill once its job started and its delay passed."""
        if not self.job_kills:
            return
        kill = self.job_kills[0]
        if kill.nth > len(self.starts):
            return
        start = self.starts[kill.nth - 1]
        if self.elapsed() < start.seen + kill.delay:
            return
        self.job_kills.pop(0)
        key = (start.issue, start.stage)
        if not alive(start.pid) or self.hits[key] >= MAX_RESUMES:
            if any(k.nth == kill.nth + 1 for k in self.job_kills):
                self.run.missed += 1  # the next job has its own kill coming
            else:
                self.job_kills.insert(0, JobKill(kill.nth + 1, kill.delay / 3))
            return
        self.hits[key] += 1
        kill_group(start.pid)
        self.run.killed.append(Killed(round(self.elapsed(), 2), "job", start.pid, *key))

    def due_loop_kill(self) -> None:
        """Kill the orchestrator when its moment came, and start it again."""
        if not self.loop_kills or self.elapsed() < self.loop_kills[0].at:
            return
        self.loop_kills.pop(0)
        if self.orchestrator.poll() is not None:
            self.run.missed += 1
            return
        kill_group(self.orchestrator.pid)
        self.orchestrator.communicate(timeout=30)
        self.run.killed.append(
            Killed(round(self.elapsed(), 2), "orchestrator", self.orchestrator.pid)
        )
        self.restart()

    def restart(self) -> None:
        self.orchestrator = self.run.world.start("run", "--until-idle")
        self.run.restarts += 1

    def stop_everything(self) -> None:
        kill_group(self.orchestrator.pid)
        self.orchestrator.communicate(timeout=30)
        for start in self.starts:
            if alive(start.pid):
                kill_group(start.pid)

    def step(self) -> bool:
        """One look; False once the run is over."""
        self.watch_starts()
        self.due_job_kill()
        self.due_loop_kill()
        if self.orchestrator.poll() is None:
            return True
        self.orchestrator.communicate(timeout=30)
        return False


def run_chaos(
    server: ForgeServer,
    root: Path,
    *,
    count: int,
    schedule: Schedule,
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
    try:
        idle = 0
        while idle < 2:
            if harness.elapsed() > deadline_s:
                run.timed_out = True
                harness.stop_everything()
                break
            if harness.step():
                time.sleep(POLL_S)
                continue
            idle += 1
            if idle < 2:
                harness.restart()  # afresh: nothing may be left for a new orchestrator to do
    finally:
        state.knobs.fail_rate = 0.0
        run.wall_s = round(harness.elapsed(), 2)
        run.missed += len(harness.job_kills) + len(harness.loop_kills)
        run.jobs_started = len(harness.starts)
        after = server.stats()
        run.faults = int(after["faults"]) - int(before["faults"])
        run.requests = int(after["requests"]) - int(before["requests"])
    return run
