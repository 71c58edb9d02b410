"""`conveyor run` and `conveyor tick` around the tick: the poll loop, waking on a job's end, Ctrl-C.

`run` ticks every `limits.poll_seconds`, and at once when one of its jobs
ends or its `Wake` says so (a webhook delivery: `shell/webhooks.py`). The
first Ctrl-C (or SIGTERM) is a cool-down: nothing new starts and the loop
ends once the running jobs have finished their stage. The second
stops the jobs with SIGTERM (each saves its issue at its stage) and waits
for them. `tick` does one pass and waits for the jobs it started.
"""

from __future__ import annotations

import os
import select
import signal
import sys
import time
import traceback
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType
from typing import Protocol

from conveyor.core.config import Config
from conveyor.forge.connect import connect
from conveyor.forge.retry import RetryPolicy
from conveyor.job.layout import load_lane, repo_home
from conveyor.orchestrator.shell.carry_out import terminate_all
from conveyor.orchestrator.shell.child_exits import child_exits
from conveyor.orchestrator.shell.executor import Executor, JobHandle, LocalExecutor
from conveyor.orchestrator.shell.snapshot_store import CACHE_FILE, SnapshotStore
from conveyor.orchestrator.shell.status_file import note_operation
from conveyor.orchestrator.shell.tick import Orchestrator, tick
from conveyor.orchestrator.shell.tick_files import LOG_FILE, OrchestratorLog

WAKE_CHECK_S = 0.2
STOP_WAIT_S = 300.0
EXIT_INTERRUPTED = 130
EXIT_FORGE = 1
BACKOFF_CAP = 8  # a forge that stays down is polled at most 8 poll intervals apart
Clock = Callable[[], datetime]


class Wake(Protocol):
    """What the loop's nap waits on besides the clock, its jobs and signals."""

    def wait(self, seconds: float, also: int | None = None) -> bool:
        """Wait up to `seconds`, returning early (False) once `also` is readable; True when
        something asks for a tick now."""
        ...


class Sleep:
    """The plain nap: nothing but the poll (or a child's exit, by `also`) ends it early."""

    def wait(self, seconds: float, also: int | None = None) -> bool:
        """Sleep `seconds`, or until `also` is readable; never a wake."""
        if also is None:
            time.sleep(seconds)
        else:
            select.select([also], [], [], max(0.0, seconds))
        return False


def utc_now() -> datetime:
    """The wall clock, in UTC."""
    return datetime.now(UTC)


class Interrupts:
    """Counts Ctrl-C / SIGTERM: the first cools down, the second stops the jobs."""

    def __init__(self) -> None:
        self.count = 0

    def handle(self, signum: int, frame: FrameType | None) -> None:
        """The signal handler."""
        del signum, frame
        self.count += 1  # only a counter: the loop polls it (no lock in a signal handler)


@contextmanager
def catching(interrupts: Interrupts) -> Iterator[None]:
    """Route SIGINT and SIGTERM to `interrupts` while the block runs."""
    before = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    for sig in before:
        signal.signal(sig, interrupts.handle)
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


ExecutorFactory = Callable[[Path, str], Executor]


def open_orchestrator(
    config: Config,
    config_path: Path,
    environ: Mapping[str, str],
    *,
    echo: bool = False,
    executor_for: ExecutorFactory | None = None,
    stop: Callable[[], bool] | None = None,
) -> Orchestrator:
    """The orchestrator of this machine's lane for one repository (its files under the home).

    Jobs run as local processes unless `executor_for(home, lane)` gives another executor.
    `stop` (the loop's Ctrl-C count) cuts the forge client's retry waits short.
    """
    home = repo_home(config, environ, config_path.parent)
    lane = load_lane(home)
    retry = None if stop is None else RetryPolicy(stop=stop)
    forge = connect(config, environ, base_dir=config_path.parent, retry=retry)
    store = SnapshotStore(home / CACHE_FILE, config.account.login)
    executor: Executor
    if executor_for is None:
        executor = LocalExecutor(config_path, lane, home, environ)
    else:
        executor = executor_for(home, lane)
    log = OrchestratorLog(home / LOG_FILE, echo=echo)
    return Orchestrator(
        config, home, lane, forge, store, executor, environ, log, config_path=config_path
    )


def _wait_jobs(orc: Orchestrator, handles: list[JobHandle], seconds: float) -> None:
    """Wait until every handle's job has ended, or `seconds` passed."""
    deadline = time.monotonic() + seconds
    sleep = Sleep()
    with child_exits() as exits:
        while True:
            if exits is not None:
                exits.drain()
            if not any(orc.executor.alive(h) for h in handles):
                return
            if (left := deadline - time.monotonic()) <= 0:
                return
            # a local job's exit ends the step at once; a remote one's is polled
            sleep.wait(min(WAKE_CHECK_S, left), also=exits.fd if exits else None)


def run_once(orc: Orchestrator, clock: Clock = utc_now) -> int:
    """One tick; wait for the jobs it started, then rewrite status.json starting nothing more.

    `EXIT_FORGE` when the forge could not be read (the log line names the URL and the error).
    """
    result = tick(orc, clock())
    if result.poll_failed:
        orc.log.write(clock(), f"poll failed: {result.poll_error}")
        return EXIT_FORGE
    if result.started:
        _wait_jobs(orc, list(result.started), float("inf"))
        orc.cooling_down, orc.cooling_reason = True, "one pass (`tick`): start nothing more"
        tick(orc, clock())
    return 0


def _tick_failed(orc: Orchestrator, now: datetime, error: Exception) -> None:
    """Log a tick that raised (its traceback to stderr); the next poll tries again."""
    traceback.print_exception(error, file=sys.stderr)
    orc.log.write(now, f"tick failed (next poll tries again): {type(error).__name__}: {error}")
    orc.degraded, alert = note_operation(orc.degraded, "tick", ok=False)
    if alert:
        orc.log.write(now, "error op=tick: failed 3 times in a row")


def _nap(orc: Orchestrator, interrupts: Interrupts, seconds: float, wake: Wake, seen: int) -> None:
    """Sleep until the poll is due, one of our jobs ended, a signal came or `wake` says so.

    `seen` is the signal count the loop has acted on: one that came during the tick
    ends the nap at once. The nap listens for SIGCHLD (`child_exits`, handed to the wake as
    `also`), so a local job's end wakes it at once; a remote job's end is seen within
    `WAKE_CHECK_S`.
    """
    deadline = time.monotonic() + seconds
    with child_exits() as exits:
        also = None if exits is None else exits.fd
        while (left := deadline - time.monotonic()) > 0 and interrupts.count == seen:
            if exits is not None:
                exits.drain()
            if any(not orc.executor.alive(h) for h in orc.handles.values()):
                return
            if wake.wait(min(WAKE_CHECK_S, left), also=also):
                return


def _poll_wait(orc: Orchestrator, failed: int) -> float:
    """The nap before the next poll: the poll interval, doubled for each poll in a row
    that could not read the forge (up to `BACKOFF_CAP` intervals), so a forge that is down
    is not asked, nor logged about, every few seconds."""
    return float(orc.config.limits.poll_seconds * min(2 ** max(failed - 1, 0), BACKOFF_CAP))


def _hard_stop(orc: Orchestrator, clock: Clock) -> int:
    """SIGTERM every job of ours, wait for them to save their issues, write the status."""
    live = terminate_all(orc.executor, orc.handles)
    orc.log.write(clock(), f"stopping: SIGTERM sent to {len(live)} jobs")
    _wait_jobs(orc, live, STOP_WAIT_S)
    tick(orc, clock())
    orc.log.write(clock(), "orchestrator stopped")
    return EXIT_INTERRUPTED


def run_loop(
    orc: Orchestrator,
    interrupts: Interrupts,
    *,
    clock: Clock = utc_now,
    until_idle: bool = False,
    wake: Wake | None = None,
) -> int:
    """Tick until interrupted (or, with `until_idle`, until nothing runs and nothing starts)."""
    nap_wake = wake if wake is not None else Sleep()
    orc.log.write(clock(), f"orchestrator started: lane {orc.lane}, pid {os.getpid()}")
    confirming, failed = False, 0
    while True:
        seen = interrupts.count
        if interrupts.count >= 2:
            return _hard_stop(orc, clock)
        if interrupts.count == 1 and not orc.cooling_down:
            orc.cooling_down = True
            orc.log.write(clock(), "cooling down: starting nothing new (Ctrl-C again stops jobs)")
        try:
            result = tick(orc, clock())
        except Exception as error:  # noqa: BLE001 - one failed tick must not end the loop
            _tick_failed(orc, clock(), error)
            _nap(orc, interrupts, orc.config.limits.poll_seconds, nap_wake, seen)
            continue
        if orc.cooling_down and result.live == 0:
            orc.log.write(clock(), "cooled down: no job running; orchestrator stopped")
            return 0 if interrupts.count == 0 else EXIT_INTERRUPTED
        if result.poll_failed and until_idle:
            orc.log.write(clock(), f"poll failed: {result.poll_error}; stopped (--until-idle)")
            return EXIT_FORGE
        if until_idle and result.idle:
            if not confirming:
                # An idle tick may rest on cached answers (a 304 list, comments
                # edited within a second): confirm it with one full read first.
                confirming = True
                orc.store.forget()
                continue
            orc.log.write(clock(), "idle: nothing running and nothing to start; stopped")
            return 0
        confirming = False
        failed = failed + 1 if result.poll_failed else 0
        wait = _poll_wait(orc, failed)
        if result.poll_failed:
            backing = f", backing off: {failed} failed in a row" if failed > 1 else ""
            orc.log.write(
                clock(), f"poll failed: {result.poll_error}; next try in {wait:g} s{backing}"
            )
        _nap(orc, interrupts, wait, nap_wake, seen)
