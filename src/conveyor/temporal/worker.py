"""`conveyor worker`: poll a Temporal task queue and run its stage jobs on this machine.

The worker registers the workflow (one activity per job) and the activity; it takes up to
`jobs` stage jobs at once. SIGTERM or Ctrl-C shuts it down: running jobs get SIGTERM (each
saves its issue at its stage), their attempts fail as "worker shut down" and Temporal gives
them to another worker. Workflows are not cached (no sticky queue): they are one call long,
and a dead worker's cached workflow would otherwise wait out a sticky time-out.
"""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Mapping, Sequence
from datetime import timedelta

from temporalio.worker import Worker

from conveyor.temporal.activity import JobActivity, RepoSetup
from conveyor.temporal.forker import ForkServer
from conveyor.temporal.target import TemporalTarget, connect, job_environment
from conveyor.temporal.workflow import StageJobWorkflow

# Shutdown waits this long for activities to end by themselves before cancelling them.
GRACE = timedelta(seconds=0)
# Heartbeat details reach Temporal at least this often (the SDK's default is 80% of the
# time-out): they are what `conveyor status` and the live view show of a remote job.
PROGRESS_EVERY = timedelta(seconds=2)


async def serve(
    target: TemporalTarget,
    repos: Mapping[str, RepoSetup],
    environ: Mapping[str, str],
    command: Sequence[str],
    *,
    jobs: int,
    forker: ForkServer | None = None,
    say: bool = True,
) -> int:
    """Run the worker until SIGTERM/SIGINT; 0 once it has shut down."""
    client = await connect(target, environ)
    identity = client.identity
    runner = JobActivity(repos, job_environment(environ), identity, command, forker)
    worker = Worker(
        client,
        task_queue=target.queue,
        workflows=[StageJobWorkflow],
        activities=[runner.run],
        max_concurrent_activities=jobs,
        max_cached_workflows=0,
        graceful_shutdown_timeout=GRACE,
        max_heartbeat_throttle_interval=PROGRESS_EVERY,
        identity=identity,
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    running = asyncio.create_task(worker.run())
    if say:
        served = ", ".join(sorted(repos))
        line = f"worker {identity} on {target.address} queue {target.queue}: {served}"
        print(f"{line}, up to {jobs} jobs", flush=True)  # noqa: T201 - the command's output
    stopping = asyncio.create_task(stop.wait())
    done, _ = await asyncio.wait({running, stopping}, return_when=asyncio.FIRST_COMPLETED)
    if running in done:
        stopping.cancel()
        running.result()  # raises what ended the worker
        return 0
    if say:
        print(f"worker {identity}: shutting down", file=sys.stderr, flush=True)  # noqa: T201
    await worker.shutdown()
    await running
    return 0
